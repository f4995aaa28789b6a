/** A top-level YAML key at column 0: `key:`, `"key":` or `'key':`, followed by a blank or the end. */
const TOP_LEVEL_KEY = /^(?:"([^"]+)"|'([^']+)'|([^\s#:"'\-?[{&*!|>%@`][^:#]*?|-[^\s:#][^:#]*?))[ \t]*:(?:[ \t]+(.*)|[ \t]*)$/;

export interface FrontmatterLine {
  readonly key: string;
  /** Text after `key:` with surrounding blanks removed; '' when the value starts on the next line. */
  readonly rest: string;
}

export function matchTopLevelKey(line: string): FrontmatterLine | undefined {
  const match = TOP_LEVEL_KEY.exec(line);
  if (!match) {
    return undefined;
  }
  const key = (match[1] ?? match[2] ?? match[3] ?? '').trim();
  // `__proto__` would reach Object.prototype through plain-object assignment; no skill field has it.
  return key === '' || key === '__proto__' ? undefined : { key, rest: (match[4] ?? '').trim() };
}

/** 0-based line of each top-level key in lines [from, to); the first occurrence wins. */
export function scanKeyLines(lines: readonly string[], from: number, to: number): Record<string, number> {
  const keyLines: Record<string, number> = {};
  for (let i = from; i < to; i++) {
    const match = matchTopLevelKey(lines[i] ?? '');
    if (match && !Object.prototype.hasOwnProperty.call(keyLines, match.key)) {
      keyLines[match.key] = i;
    }
  }
  return keyLines;
}

function isIndented(line: string): boolean {
  return /^[ \t]/.test(line);
}

function unquote(value: string): string {
  if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) {
    try {
      return JSON.parse(value) as string;
    } catch {
      return value.slice(1, -1);
    }
  }
  if (value.length >= 2 && value.startsWith("'") && value.endsWith("'")) {
    return value.slice(1, -1).replace(/''/g, "'");
  }
  return value;
}

function stripComment(value: string): string {
  if (/^["']/.test(value)) {
    return value;
  }
  const comment = value.search(/\s#/);
  return comment >= 0 ? value.slice(0, comment).trimEnd() : value;
}

/**
 * Reads `key: value` lines at column 0 without a YAML parser, for frontmatter that YAML rejects
 * (typically an unquoted value holding `: `). Scalars only: block scalars (`|`, `>`) and plain
 * continuation lines are joined; keys whose value is a nested mapping or list are left out,
 * because guessing their structure would produce findings about values the author never wrote.
 */
export function readFrontmatterLines(lines: readonly string[], from: number, to: number): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  let i = from;
  while (i < to) {
    const match = matchTopLevelKey(lines[i] ?? '');
    i++;
    if (!match) {
      continue;
    }
    const continuation: string[] = [];
    while (i < to && (isIndented(lines[i] ?? '') || (lines[i] ?? '').trim() === '')) {
      continuation.push(lines[i] ?? '');
      i++;
    }
    while (continuation.at(-1)?.trim() === '') {
      continuation.pop();
    }
    const value = scalarValue(match.rest, continuation);
    if (value !== undefined && !Object.prototype.hasOwnProperty.call(values, match.key)) {
      values[match.key] = value;
    }
  }
  return values;
}

function scalarValue(rest: string, continuation: readonly string[]): string | undefined {
  const block = /^([|>])([+-]?)\d*$/.exec(rest);
  if (block) {
    const indent = Math.min(
      ...continuation.filter((line) => line.trim() !== '').map((line) => line.length - line.trimStart().length),
    );
    const body = continuation.map((line) => line.slice(Number.isFinite(indent) ? indent : 0).trimEnd());
    const text = block[1] === '|' ? body.join('\n') : foldLines(body);
    return block[2] === '-' ? text : `${text}\n`;
  }
  if (rest === '') {
    // A nested mapping or list follows (or nothing at all): not a scalar we can read line by line.
    const meaningful = continuation.filter((line) => line.trim() !== '');
    return meaningful.length === 0 ? '' : undefined;
  }
  if (/^[[{]/.test(rest)) {
    return undefined;
  }
  const joined = [stripComment(rest), ...continuation.map((line) => line.trim()).filter((line) => line !== '')].join(' ');
  return unquote(joined);
}

function foldLines(lines: readonly string[]): string {
  let text = '';
  for (const line of lines) {
    if (line === '') {
      text += '\n';
    } else {
      text += text === '' || text.endsWith('\n') ? line : ` ${line}`;
    }
  }
  return text;
}
