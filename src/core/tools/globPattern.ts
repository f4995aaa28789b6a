/**
 * Glob patterns as regular expressions over `/`-separated relative paths. One small translator
 * serves three dialects: the model's globs (find_files, search_text), VS Code's `files.exclude`
 * globs and `.gitignore` patterns (which have no braces). Supported: `*` and `?` (never across
 * `/`), `**` as a whole segment (any number of folders, including none), `[abc]`, `[a-z]`,
 * `[!abc]` / `[^abc]`, `{a,b}` (nestable), and `\` to escape the next character.
 */

export interface GlobOptions {
  /** `{a,b}` alternatives; `.gitignore` has none, so there `{` is an ordinary character. */
  readonly braces?: boolean;
  readonly caseInsensitive?: boolean;
}

const REGEX_SPECIAL = /[.*+?^${}()|[\]\\/]/g;
const escapeRegex = (text: string): string => text.replace(REGEX_SPECIAL, '\\$&');

/** Index of the `]` closing a class that opens at `start`, or -1 when the `[` is literal. */
function classEnd(glob: string, start: number): number {
  let i = start + 1;
  if (glob[i] === '!' || glob[i] === '^') i++;
  // A `]` right after the opening (or its negation) is a member, not the end.
  if (glob[i] === ']') i++;
  for (; i < glob.length; i++) {
    if (glob[i] === '\\') i++;
    else if (glob[i] === ']') return i;
  }
  return -1;
}

function translateClass(body: string): string {
  const negate = body[0] === '!' || body[0] === '^';
  const first = negate ? 1 : 0;
  let out = '';
  for (let i = first; i < body.length; i++) {
    let ch = body[i] as string;
    let escaped = false;
    if (ch === '\\' && i + 1 < body.length) {
      ch = body[++i] as string;
      escaped = true;
    }
    // An unescaped `-` between two members is a range; anywhere else it is itself.
    const range = ch === '-' && !escaped && i > first && i < body.length - 1;
    out += range ? '-' : ch.replace(/[\\\]^-]/g, '\\$&');
  }
  // A class never matches the folder separator, like `*` and `?`.
  return negate ? `[^/${out}]` : `(?:(?!/)[${out}])`;
}

/** Index of the `}` closing a brace group that opens at `start`, and its top-level commas. */
function braceGroup(glob: string, start: number): { end: number; commas: number[] } | undefined {
  let depth = 0;
  const commas: number[] = [];
  for (let i = start; i < glob.length; i++) {
    const ch = glob[i];
    if (ch === '\\') i++;
    else if (ch === '[') {
      const end = classEnd(glob, i);
      if (end !== -1) i = end;
    } else if (ch === '{') depth++;
    else if (ch === '}') {
      depth--;
      if (depth === 0) return commas.length > 0 ? { end: i, commas } : undefined;
    } else if (ch === ',' && depth === 1) commas.push(i);
  }
  return undefined;
}

function translate(glob: string, options: GlobOptions): string {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i] as string;
    if (ch === '\\') {
      if (i + 1 < glob.length) out += escapeRegex(glob[++i] as string);
      else out += '\\\\';
    } else if (ch === '*') {
      let run = 1;
      while (glob[i + run] === '*') run++;
      const segmentStart = i === 0 || glob[i - 1] === '/';
      const after = glob[i + run];
      if (run >= 2 && segmentStart && after === '/') {
        // Whole folders only, none at all included: `a/**/b` matches `a/b` and `a/x/y/b`.
        out += '(?:[^/]+/)*';
        i += run;
      } else if (run >= 2 && segmentStart && after === undefined) {
        out += '.*';
        i += run - 1;
      } else {
        out += '[^/]*';
        i += run - 1;
      }
    } else if (ch === '?') {
      out += '[^/]';
    } else if (ch === '[') {
      const end = classEnd(glob, i);
      if (end === -1) out += '\\[';
      else {
        out += translateClass(glob.slice(i + 1, end));
        i = end;
      }
    } else if (ch === '{' && options.braces !== false) {
      const group = braceGroup(glob, i);
      if (!group) out += '\\{';
      else {
        const bounds = [i, ...group.commas, group.end];
        const alternatives = bounds.slice(1).map((end, k) => translate(glob.slice((bounds[k] as number) + 1, end), options));
        out += `(?:${alternatives.join('|')})`;
        i = group.end;
      }
    } else {
      out += escapeRegex(ch);
    }
  }
  return out;
}

/** A RegExp that matches the whole of a relative path (no leading `/`) against `glob`. */
export function globToRegExp(glob: string, options: GlobOptions = {}): RegExp {
  return new RegExp(`^${translate(glob, options)}$`, options.caseInsensitive ? 'i' : '');
}

export type PathMatcher = (relativePath: string) => boolean;

/**
 * A matcher in the model-friendly dialect: a glob without `/` matches the file name at any depth
 * (`*.ts`), one with `/` matches the path from the search base (`src/**\/*.ts`); a leading `/` or
 * `./` anchors without meaning anything else.
 */
export function compileUserGlob(glob: string, options: GlobOptions = {}): PathMatcher {
  const trimmed = glob.trim().replace(/^\.\//, '');
  const anchored = trimmed.replace(/^\/+/, '');
  if (!anchored.includes('/')) {
    const name = globToRegExp(anchored, options);
    return (relativePath) => name.test(relativePath.slice(relativePath.lastIndexOf('/') + 1));
  }
  const full = globToRegExp(anchored.replace(/\/+$/, ''), options);
  return (relativePath) => full.test(relativePath);
}

/** Why a glob from the model is unusable, or undefined when it is fine. */
export function userGlobProblem(glob: string): string | undefined {
  const trimmed = glob.trim();
  if (trimmed === '') return 'the glob is empty; give a pattern such as "*.ts" or "src/**/*.test.ts"';
  if (/[\u0000-\u001f]/.test(trimmed)) return 'the glob contains a control character; give a plain pattern such as "*.ts"';
  if (trimmed.split('/').includes('..')) return `the glob ${JSON.stringify(glob)} contains ".."; use the path argument to choose where to look`;
  return undefined;
}
