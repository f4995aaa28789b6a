import { lineAt, lineStarts } from './lines';
/**
 * The patch matcher behind `skill_manage(action: "patch")` (and the workspace edit tool).
 * Models copy text with drifted indentation and whitespace, so matching is tried in three passes
 * of decreasing strictness; the first pass that finds anything decides. Ambiguity is never
 * resolved by guessing: several matches are refused unless the caller asks to replace them all.
 */

export type PatchStrategy = 'exact' | 'line-trimmed' | 'whitespace-collapsed';

export interface PatchOptions {
  readonly replaceAll?: boolean;
}

export type PatchOutcome =
  | {
      readonly ok: true;
      readonly text: string;
      readonly replacements: number;
      readonly strategy: PatchStrategy;
      /** 1-based line numbers (in the original text) where each replaced region started. */
      readonly lines: readonly number[];
    }
  | { readonly ok: false; readonly reason: 'invalid' | 'no-match' | 'ambiguous'; readonly error: string };

interface Match {
  readonly start: number;
  readonly end: number;
  readonly replacement: string;
  /** Where the matched text itself starts (a deletion may also take the line break before it). */
  readonly at: number;
}

const isBlank = (line: string): boolean => line.trim() === '';
const leadingWhitespace = (line: string): string => /^[ \t]*/.exec(line)?.[0] ?? '';

/** Drops whitespace-only lines at both ends, which models add or lose freely. */
function trimBlankLines(lines: readonly string[]): string[] {
  let start = 0;
  let end = lines.length;
  // Both indexes stay in range; '' only satisfies the type checker.
  while (start < end && isBlank(lines[start] ?? '')) start++;
  while (end > start && isBlank(lines[end - 1] ?? '')) end--;
  return lines.slice(start, end);
}

/**
 * Moves `lines` from the indentation the model used to the one the file has, so a block the
 * model wrote flush left lands at the file's depth (and the reverse).
 */
function reindent(lines: readonly string[], modelIndent: string, fileIndent: string): string[] {
  if (modelIndent === fileIndent) return [...lines];
  return lines.map((line) => {
    if (isBlank(line)) return '';
    return line.startsWith(modelIndent) ? fileIndent + line.slice(modelIndent.length) : line;
  });
}

/**
 * Indents replacement lines for a line-trimmed match, where the drift need not be uniform (a
 * model may flatten a nested list). A new line that repeats an old line, or stands in its place
 * when the line count is unchanged, and keeps the model's indentation of that line, takes the
 * file's indentation of the matching line; any other line is shifted like the first line.
 */
function reindentLike(newLines: readonly string[], oldLines: readonly string[], matched: readonly string[], modelIndent: string): string[] {
  const shifted = reindent(newLines, modelIndent, leadingWhitespace(matched[0] ?? ''));
  let from = 0;
  return newLines.map((line, k) => {
    if (isBlank(line)) return '';
    const own = leadingWhitespace(line);
    const trimmed = line.trim();
    let j = oldLines.findIndex((old, index) => index >= from && old.trim() === trimmed);
    if (j >= 0) from = j + 1;
    else if (newLines.length === oldLines.length) j = k;
    // `matched` has a line for each old line, `shifted` one for each new line.
    const old = j >= 0 ? oldLines[j] : undefined;
    const inFile = j >= 0 ? matched[j] : undefined;
    if (old !== undefined && inFile !== undefined && leadingWhitespace(old) === own) return leadingWhitespace(inFile) + line.slice(own.length);
    return shifted[k] ?? line;
  });
}

const lineNumberAt = (starts: readonly number[], offset: number): number => lineAt(starts, offset) + 1;

function exactMatches(text: string, oldString: string, newString: string): Match[] {
  const matches: Match[] = [];
  for (let at = text.indexOf(oldString); at !== -1; at = text.indexOf(oldString, at + oldString.length)) {
    matches.push({ start: at, end: at + oldString.length, replacement: newString, at });
  }
  return matches;
}

function lineTrimmedMatches(text: string, oldString: string, newString: string): Match[] {
  const wanted = trimBlankLines(oldString.split('\n'));
  if (wanted.length === 0) return [];
  const wantedTrimmed = wanted.map((line) => line.trim());
  const fileLines = text.split('\n');
  const fileTrimmed = fileLines.map((line) => line.trim());
  const starts = lineStarts(text);
  const modelIndent = leadingWhitespace(wanted[0] ?? '');
  const newLines = trimBlankLines(newString.split('\n'));
  const matches: Match[] = [];
  for (let i = 0; i + wanted.length <= fileLines.length; ) {
    let same = true;
    for (let j = 0; j < wanted.length && same; j++) same = fileTrimmed[i + j] === wantedTrimmed[j];
    if (!same) {
      i++;
      continue;
    }
    const last = i + wanted.length - 1;
    // starts has an entry for each of fileLines, and last < fileLines.length: this only narrows the types.
    const at = starts[i];
    const lastStart = starts[last];
    const lastLine = fileLines[last];
    if (at === undefined || lastStart === undefined || lastLine === undefined) break;
    let start = at;
    let end = lastStart + lastLine.replace(/\r$/, '').length;
    const replacement = reindentLike(newLines, wanted, fileLines.slice(i, last + 1), modelIndent).join('\n');
    if (newLines.length === 0) {
      // Deleting whole lines takes a line break with them, so no empty line is left behind.
      const nextStart = starts[last + 1];
      if (nextStart !== undefined) end = nextStart;
      else if (start > 0) start -= text[start - 2] === '\r' ? 2 : 1;
    }
    matches.push({ start, end, replacement, at });
    i = last + 1;
  }
  return matches;
}

function collapsedMatches(text: string, oldString: string, newString: string): Match[] {
  const needle = oldString.trim().replace(/\s+/g, ' ');
  if (needle === '') return [];
  // `origin[k]` is where the k-th character of the collapsed text came from.
  let collapsed = '';
  const origin: number[] = [];
  for (let i = 0; i < text.length; i++) {
    if (/\s/.test(text.charAt(i))) {
      const runStart = i;
      while (i + 1 < text.length && /\s/.test(text.charAt(i + 1))) i++;
      collapsed += ' ';
      origin.push(runStart);
    } else {
      collapsed += text[i];
      origin.push(i);
    }
  }
  const oldLines = trimBlankLines(oldString.split('\n'));
  const modelIndent = leadingWhitespace(oldLines[0] ?? '');
  const newLines = trimBlankLines(newString.split('\n'));
  const firstNew = newLines[0];
  if (firstNew !== undefined) newLines[0] = firstNew.trimStart();
  // Read after the line above: with one line, it is the same line.
  const lastNew = newLines.at(-1);
  if (lastNew !== undefined) newLines[newLines.length - 1] = lastNew.trimEnd();
  const matches: Match[] = [];
  for (let k = collapsed.indexOf(needle); k !== -1; k = collapsed.indexOf(needle, k + needle.length)) {
    // origin has an entry for each character of collapsed: this only narrows the types.
    const start = origin[k];
    const lastOrigin = origin[k + needle.length - 1];
    if (start === undefined || lastOrigin === undefined) break;
    const end = lastOrigin + 1;
    const lineStart = text.lastIndexOf('\n', start - 1) + 1;
    const fileIndent = leadingWhitespace(text.slice(lineStart, start + 1));
    const [first = '', ...rest] = newLines;
    matches.push({ start, end, replacement: [first, ...reindent(rest, modelIndent, fileIndent)].join('\n'), at: start });
  }
  return matches;
}

function bigrams(value: string): Map<string, number> {
  const grams = new Map<string, number>();
  const lower = value.toLowerCase().slice(0, 300);
  for (let i = 0; i + 1 < lower.length; i++) {
    const gram = lower.slice(i, i + 2);
    grams.set(gram, (grams.get(gram) ?? 0) + 1);
  }
  return grams;
}

/** Dice coefficient over character bigrams: cheap enough to run on every line of a large file. */
function similarity(a: string, b: string): number {
  const ga = bigrams(a);
  const gb = bigrams(b);
  let total = 0;
  let shared = 0;
  for (const count of ga.values()) total += count;
  for (const [gram, count] of gb) {
    total += count;
    shared += Math.min(count, ga.get(gram) ?? 0);
  }
  return total === 0 ? 0 : (2 * shared) / total;
}

/** The file lines most like the first line of `oldString`, for the no-match hint. */
export function closestLines(text: string, oldString: string, limit = 3): { line: number; text: string }[] {
  const probe = trimBlankLines(oldString.split('\n'))[0]?.trim() ?? '';
  if (probe === '') return [];
  return text
    .split('\n')
    .map((line, index) => ({ line: index + 1, text: line.replace(/\r$/, ''), score: similarity(probe, line.trim()) }))
    .filter((candidate) => candidate.score >= 0.4 && candidate.text.trim() !== '')
    .sort((a, b) => b.score - a.score || a.line - b.line)
    .slice(0, limit)
    .map(({ line, text: lineText }) => ({ line, text: lineText.length > 160 ? `${lineText.slice(0, 157)}...` : lineText }));
}

/** Line endings: a pure CRLF file is matched as LF and written back as CRLF; a mixed one is left alone. */
function lineEndingsOf(text: string): 'crlf' | 'as-is' {
  return text.includes('\r\n') && !/(^|[^\r])\n/.test(text) ? 'crlf' : 'as-is';
}

/** Replaces `oldString` with `newString` in `text`, tolerating whitespace drift, refusing ambiguity. */
export function applyPatch(text: string, oldString: string, newString: string, options: PatchOptions = {}): PatchOutcome {
  if (oldString === '') return { ok: false, reason: 'invalid', error: 'old_string is empty; give the exact text to replace' };
  if (oldString === newString) {
    return { ok: false, reason: 'invalid', error: 'old_string and new_string are identical; nothing would change' };
  }
  const endings = lineEndingsOf(text);
  const source = endings === 'crlf' ? text.replace(/\r\n/g, '\n') : text;
  const wanted = oldString.replace(/\r\n/g, '\n');
  const replacement = newString.replace(/\r\n/g, '\n');

  const passes: [PatchStrategy, (t: string, o: string, n: string) => Match[]][] = [
    ['exact', exactMatches],
    ['line-trimmed', lineTrimmedMatches],
    ['whitespace-collapsed', collapsedMatches],
  ];
  for (const [strategy, find] of passes) {
    const matches = find(source, wanted, replacement);
    if (matches.length === 0) continue;
    const starts = lineStarts(source);
    const lines = matches.map((match) => lineNumberAt(starts, match.at));
    if (matches.length > 1 && !options.replaceAll) {
      const shown = lines.slice(0, 10).join(', ') + (lines.length > 10 ? ', ...' : '');
      return {
        ok: false,
        reason: 'ambiguous',
        error: `old_string matches ${matches.length} places (lines ${shown}); include more surrounding text to make it unique, or set replace_all to true to change every one`,
      };
    }
    let result = '';
    let from = 0;
    for (const match of matches) {
      result += source.slice(from, match.start) + match.replacement;
      from = match.end;
    }
    result += source.slice(from);
    if (endings === 'crlf') result = result.replace(/\n/g, '\r\n');
    return { ok: true, text: result, replacements: matches.length, strategy, lines };
  }

  if (wanted.trim() === '') {
    return { ok: false, reason: 'invalid', error: 'old_string is only whitespace; give the text to replace' };
  }
  const near = closestLines(source, wanted);
  const hint =
    near.length > 0
      ? ` Closest lines: ${near.map((c) => `line ${c.line}: ${JSON.stringify(c.text)}`).join('; ')}.`
      : ' No similar line exists; the text may have been changed or removed.';
  return {
    ok: false,
    reason: 'no-match',
    error: `old_string was not found, not even ignoring indentation and whitespace.${hint} View the file again and copy the text exactly.`,
  };
}
