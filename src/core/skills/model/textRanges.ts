import type { TextEdit, TextRange } from './skillTypes';

/** Line break as VS Code counts lines: CRLF, LF or a lone CR. */
export const LINE_BREAK = /\r\n|\n|\r/;

export function range(startLine: number, startColumn: number, endLine: number, endColumn: number): TextRange {
  return { startLine, startColumn, endLine, endColumn };
}

/** The text of a line without its indentation and trailing blanks; the whole line when it is blank. */
export function lineRange(lines: readonly string[], line: number): TextRange {
  const safeLine = Math.max(0, Math.min(line, lines.length - 1));
  const text = lines[safeLine] ?? '';
  const start = text.length - text.trimStart().length;
  const end = text.trimEnd().length;
  return end > start ? range(safeLine, start, safeLine, end) : range(safeLine, 0, safeLine, text.length);
}

/** Where a column-0 `key:` sits on its line, or the first line of the file when the key is not found. */
export function keyRange(lines: readonly string[], keyLines: Readonly<Record<string, number>>, key: string, fallbackLine = 0): TextRange {
  const line = keyLines[key];
  if (line === undefined) {
    return lineRange(lines, fallbackLine);
  }
  const text = lines[line] ?? '';
  const at = text.indexOf(key);
  return at >= 0 ? range(line, at, line, at + key.length) : lineRange(lines, line);
}

/** The value written after `key:` on the same line (quotes included, trailing comment excluded). */
export function inlineValueRange(lines: readonly string[], line: number): TextRange | undefined {
  const text = lines[line] ?? '';
  const match = /^(\s*(?:-\s+)?(?:"[^"]*"|'[^']*'|[^\s:"'#][^:]*?)\s*:[ \t]*)(.*)$/.exec(text);
  const prefix = match?.[1];
  let value = match?.[2];
  if (prefix === undefined || value === undefined) {
    return undefined;
  }
  const start = prefix.length;
  if (!/^["']/.test(value)) {
    const comment = value.search(/\s#/);
    if (comment >= 0) {
      value = value.slice(0, comment);
    }
  }
  value = value.trimEnd();
  if (value === '' || /^[|>][+-]?\d*$/.test(value)) {
    return undefined;
  }
  return range(line, start, line, start + value.length);
}

/** The inline value of a line, or the whole line when the value continues on the next lines. */
export function valueRangeOnLine(lines: readonly string[], line: number): TextRange {
  return inlineValueRange(lines, line) ?? lineRange(lines, line);
}

export function valueRange(lines: readonly string[], keyLines: Readonly<Record<string, number>>, key: string, fallbackLine = 0): TextRange {
  const line = keyLines[key];
  return line === undefined ? lineRange(lines, fallbackLine) : valueRangeOnLine(lines, line);
}

/** Inserts whole lines before `line` (or at the end of the file when `line` is past it). */
export function insertLines(lines: readonly string[], line: number, newLines: readonly string[], eol: string): TextEdit {
  if (line < lines.length) {
    return { range: range(line, 0, line, 0), newText: newLines.map((text) => text + eol).join('') };
  }
  const last = lines.length - 1;
  const lastLength = (lines[last] ?? '').length;
  return { range: range(last, lastLength, last, lastLength), newText: newLines.map((text) => eol + text).join('') };
}

/** A YAML double-quoted scalar; JSON's escaping is valid YAML. */
export function yamlQuote(value: string): string {
  return JSON.stringify(value);
}

/** Counts Unicode code points, as the Agent Skills spec's limits do. */
export function codePointLength(value: string): number {
  let count = 0;
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code < 0xd800 || code > 0xdbff) {
      count++;
    }
  }
  return count;
}

/** Writes a scalar plainly when YAML reads it back as the same string, quoted otherwise. */
export function yamlScalar(value: string): string {
  const plainSafe = /^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(value);
  const looksTyped =
    /^[-+]?(?:\d[\d_]*)?(?:\.\d*)?(?:[eE][-+]?\d+)?$/.test(value) ||
    /^0[xo]/i.test(value) ||
    /^(?:true|false|null|yes|no|on|off|y|n|~)$/i.test(value) ||
    /^\.(?:inf|nan)$/i.test(value);
  return plainSafe && !looksTyped ? value : yamlQuote(value);
}

/** First line in [from, to) at column 0 that is neither blank nor a comment: where a key's block ends. */
export function blockEnd(lines: readonly string[], from: number, to: number): number {
  for (let i = from; i < to; i++) {
    const text = lines[i] ?? '';
    if (text !== '' && !/^[ \t#]/.test(text)) {
      return i;
    }
  }
  return to;
}

/** Line of the first `key:` (optionally a list item `- key:`) nested in lines [from, to). */
export function findChildKeyLine(lines: readonly string[], from: number, to: number, key: string): number | undefined {
  const escaped = key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const pattern = new RegExp(`^[ \\t]+(?:-[ \\t]+)?(["']?)${escaped}\\1[ \\t]*:(?:[ \\t]|$)`);
  for (let i = from; i < to; i++) {
    if (pattern.test(lines[i] ?? '')) {
      return i;
    }
  }
  return undefined;
}

/** First occurrence of `needle` in lines [from, to), as a range; undefined when absent. */
export function findText(lines: readonly string[], from: number, to: number, needle: string): TextRange | undefined {
  for (let i = from; i < to; i++) {
    const at = (lines[i] ?? '').indexOf(needle);
    if (at >= 0) {
      return range(i, at, i, at + needle.length);
    }
  }
  return undefined;
}
