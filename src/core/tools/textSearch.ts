import type { IgnoreRules } from './ignoreRules';
import type { PathMatcher } from './globPattern';

/**
 * The port behind `search_text`: one workspace folder searched for a literal or a regular
 * expression, line by line. Two implementations return the same shape and order (files in the
 * order `rg --sort path` visits them, lines in file order): RipgrepSearch (the `rg` binary VS Code
 * bundles) and JsTextSearch (a walk in JavaScript, for hosts without ripgrep).
 */

export interface TextSearchQuery {
  readonly pattern: string;
  /** False: `pattern` is literal text. True: a regular expression. */
  readonly regex: boolean;
  readonly caseSensitive: boolean;
  /** The folder's ignore rules; `rules.root` is the folder searched. */
  readonly rules: IgnoreRules;
  /** Folder or file to search, relative to the root (`''` for the whole folder). */
  readonly start: string;
  /** A file given explicitly is searched even if ignored, and without the include filter. */
  readonly startIsFile: boolean;
  /** Only files whose path relative to `start` matches (see compileUserGlob). */
  readonly include?: PathMatcher;
  /** The glob `include` was made from, for engines that can prune with it. */
  readonly includeGlob?: string;
  /** Matching lines wanted at most; one more is looked for to tell whether there are more. */
  readonly maxResults: number;
  readonly signal?: AbortSignal;
}

export interface TextMatch {
  /** `/`-separated, relative to the folder root. */
  readonly path: string;
  /** 1-based. */
  readonly line: number;
  /** 1-based, in UTF-16 code units, of the first match on the line. */
  readonly column: number;
  /** The line, cut around the match when long. */
  readonly text: string;
}

export type TextSearchOutcome =
  | {
      readonly ok: true;
      readonly matches: readonly TextMatch[];
      /** More matching lines exist than `maxResults`. */
      readonly truncated: boolean;
      readonly engine: 'ripgrep' | 'javascript';
      readonly note?: string;
    }
  | { readonly ok: false; readonly error: string };

export interface TextSearchPort {
  search(query: TextSearchQuery): Promise<TextSearchOutcome>;
}

/** Files above this are not searched (`rg --max-filesize 1M`): generated bundles, data, logs. */
export const MAX_SEARCHED_FILE_BYTES = 1024 * 1024;
export const MAX_PREVIEW_CHARS = 300;

/** Cuts a long line to a window around the match, marking the cuts with `…`. */
export function previewLine(line: string, column: number): string {
  if (line.length <= MAX_PREVIEW_CHARS) return line;
  const at = Math.max(0, column - 1);
  const start = Math.max(0, Math.min(at - 80, line.length - MAX_PREVIEW_CHARS));
  const end = start + MAX_PREVIEW_CHARS;
  return `${start > 0 ? '…' : ''}${line.slice(start, end)}${end < line.length ? '…' : ''}`;
}

const REGEX_SPECIAL = /[.*+?^${}()|[\]\\]/g;

/** The per-line matcher both engines agree on: JavaScript's RegExp, or the literal text escaped. */
export function lineMatcher(query: Pick<TextSearchQuery, 'pattern' | 'regex' | 'caseSensitive'>): { ok: true; regex: RegExp } | { ok: false; error: string } {
  const source = query.regex ? query.pattern : query.pattern.replace(REGEX_SPECIAL, '\\$&');
  try {
    return { ok: true, regex: new RegExp(source, query.caseSensitive ? '' : 'i') };
  } catch (error) {
    const reason = error instanceof Error ? error.message.replace(/^Invalid regular expression: /, '') : String(error);
    return { ok: false, error: `invalid regular expression ${JSON.stringify(query.pattern)}: ${reason}; fix it, or set regex to false to search for the text literally` };
  }
}

/** The part of `relative` below `start`, for include globs that are relative to the search base. */
export function belowStart(relative: string, start: string): string {
  return start === '' ? relative : relative.slice(start.length + 1);
}
