/**
 * A small reader for the YAML that SKILL.md frontmatter almost always uses: block mappings of
 * `key: scalar`, plain / quoted / `|` `>` block scalars, flow lists `[a, b]` and block lists.
 * It exists because a full YAML parser costs more than the whole rest of indexing a skill.
 *
 * It must never disagree with js-yaml (what gray-matter uses): whenever the text steps outside
 * the subset it fully understands, or a plain scalar might resolve to something other than what
 * it resolves here, it answers `undefined` and the caller parses that file with gray-matter.
 */

export type YamlValue = string | number | boolean | null | YamlValue[] | { [key: string]: YamlValue };
export type YamlMapping = { [key: string]: YamlValue };

/** Thrown inside the reader when the text leaves the subset; never escapes this module. */
class Unsure extends Error {}

const KEY_LINE = /^([A-Za-z0-9_][A-Za-z0-9_.-]*):(?: (.*))?$/;
/** First characters that make a plain scalar something else (or need rules this reader skips). */
const INDICATORS = new Set(['-', '?', ':', ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', "'", '"', '%', '@', '`']);
const NON_PRINTABLE = /[\x00-\x08\x0B\x0C\x0E-\x1F\x7F-\x84\x86-\x9F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?:[^\uD800-\uDBFF]|^)[\uDC00-\uDFFF]/;
const SIMPLE_ESCAPES: Record<string, string> = { '\\': '\\', '"': '"', '/': '/', n: '\n', t: '\t', r: '\r', '0': '\0', b: '\b', f: '\f' };

function indentOf(line: string): number {
  let n = 0;
  while (n < line.length && line.charCodeAt(n) === 32) n++;
  return n;
}

/** YAML trims spaces (tabs never get this far), not the Unicode spaces String.trim removes. */
function trimSpaces(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && text.charCodeAt(start) === 32) start++;
  while (end > start && text.charCodeAt(end - 1) === 32) end--;
  return start === 0 && end === text.length ? text : text.slice(start, end);
}

function isBlankOrComment(line: string): boolean {
  const indent = indentOf(line);
  return indent === line.length || line.charCodeAt(indent) === 35; /* # */
}

function isDashItem(content: string): boolean {
  return content === '-' || content.startsWith('- ');
}

/** What js-yaml's default schema makes of a plain scalar, or Unsure when the answer needs more rules. */
function resolvePlain(text: string): YamlValue {
  if (text === '~' || text === 'null' || text === 'Null' || text === 'NULL') return null;
  if (text === 'true' || text === 'True' || text === 'TRUE') return true;
  if (text === 'false' || text === 'False' || text === 'FALSE') return false;
  const first = text.charCodeAt(0);
  const numericStart = (first >= 48 && first <= 57) || first === 43 || first === 45 || first === 46; // 0-9 + - .
  if (!numericStart) return text;
  if (/^[-+]?(?:0|[1-9][0-9]*)$/.test(text)) return Number(text);
  if (/^[-+]?(?:0|[1-9][0-9]*)\.[0-9]+$/.test(text)) return Number(text);
  // Dotted versions such as 1.0.0 match no int, float or timestamp pattern.
  if (/^[0-9]+(?:\.[0-9]+){2,}$/.test(text)) return text;
  if (/^[-+]?\.(?:inf|Inf|INF|nan|NaN|NAN)$/.test(text)) throw new Unsure();
  // Digits then a letter that no int (0x, 0o, 0b), float (e) or timestamp can continue with: `3d`.
  if (/^[0-9]+[ac-dfg-npqr-wyzAC-DF-NP-WYZ]/.test(text)) return text;
  // A character no number or timestamp can contain makes it a string for sure.
  if (/[^0-9_+\-.:eExXoObBa-fA-FtTzZ ]/.test(text)) return text;
  throw new Unsure();
}

/** Strips a trailing ` # comment` from a plain scalar and checks it is one js-yaml reads the same way. */
function plainText(raw: string, inFlow: boolean): string {
  const hash = raw.indexOf(' #');
  const text = trimSpaces(hash >= 0 ? raw.slice(0, hash) : raw);
  if (text === '' || INDICATORS.has(text.charAt(0))) throw new Unsure();
  if (text.includes(': ') || text.endsWith(':')) throw new Unsure();
  if (inFlow && /[,[\]{}:#]/.test(text)) throw new Unsure();
  return text;
}

/** Reads a quoted scalar that starts `raw` and returns it with the rest of the line after the closing quote. */
function readQuoted(raw: string): { value: string; rest: string } {
  const quote = raw[0];
  let value = '';
  let i = 1;
  while (i < raw.length) {
    const ch = raw[i];
    if (quote === "'") {
      if (ch === "'") {
        if (raw[i + 1] === "'") {
          value += "'";
          i += 2;
          continue;
        }
        return { value, rest: raw.slice(i + 1) };
      }
    } else if (ch === '"') {
      return { value, rest: raw.slice(i + 1) };
    } else if (ch === '\\') {
      const next = raw[i + 1];
      if (next === 'u' && /^[0-9a-fA-F]{4}$/.test(raw.slice(i + 2, i + 6))) {
        value += String.fromCharCode(parseInt(raw.slice(i + 2, i + 6), 16));
        i += 6;
        continue;
      }
      const escaped = next === undefined ? undefined : SIMPLE_ESCAPES[next];
      if (escaped === undefined) throw new Unsure();
      value += escaped;
      i += 2;
      continue;
    }
    value += ch;
    i++;
  }
  // Quoted scalars that continue on the next line fold in ways not worth repeating here.
  throw new Unsure();
}

function assertOnlyComment(rest: string): void {
  const trimmed = trimSpaces(rest);
  if (trimmed !== '' && (trimmed[0] !== '#' || rest[0] !== ' ')) throw new Unsure();
}

function readFlowList(raw: string): YamlValue[] {
  const items: YamlValue[] = [];
  let i = 1;
  for (;;) {
    while (raw[i] === ' ') i++;
    if (raw[i] === ']' && items.length === 0) {
      assertOnlyComment(raw.slice(i + 1));
      return items;
    }
    if (raw[i] === "'" || raw[i] === '"') {
      const quoted = readQuoted(raw.slice(i));
      items.push(quoted.value);
      i = raw.length - quoted.rest.length;
      while (raw[i] === ' ') i++;
    } else {
      let end = i;
      while (end < raw.length && raw[end] !== ',' && raw[end] !== ']') end++;
      items.push(resolvePlain(plainText(raw.slice(i, end), true)));
      i = end;
    }
    if (raw[i] === ',') {
      i++;
      continue;
    }
    if (raw[i] === ']') {
      assertOnlyComment(raw.slice(i + 1));
      return items;
    }
    throw new Unsure();
  }
}

class SubsetReader {
  private i = 0;

  constructor(private readonly lines: readonly string[]) {}

  /**
   * Line `j`. Every caller passes an index below `lines.length` (a bound checked just before, or
   * one from nextSignificant), so the '' fallback, which would read as a blank line, is never used.
   */
  private lineAt(j: number): string {
    return this.lines[j] ?? '';
  }

  readDocument(): YamlMapping {
    const start = this.nextSignificant();
    if (start === undefined) return {};
    if (indentOf(this.lineAt(start)) !== 0) throw new Unsure();
    const result = this.readMapping(0);
    if (this.nextSignificant() !== undefined) throw new Unsure();
    return result;
  }

  /** Index of the next line that is neither blank nor a comment, without consuming it. */
  private nextSignificant(): number | undefined {
    for (let j = this.i; j < this.lines.length; j++) {
      if (!isBlankOrComment(this.lineAt(j))) return j;
    }
    return undefined;
  }

  private readMapping(indent: number): YamlMapping {
    const result: YamlMapping = {};
    for (;;) {
      const j = this.nextSignificant();
      if (j === undefined) return result;
      const line = this.lineAt(j);
      const lineIndent = indentOf(line);
      if (lineIndent < indent) return result;
      if (lineIndent > indent) throw new Unsure();
      const match = KEY_LINE.exec(line.slice(indent));
      if (!match) {
        if (isDashItem(line.slice(indent))) return result;
        throw new Unsure();
      }
      const key = match[1];
      // Group 1 always takes part in a match; the check only tells the type checker so.
      if (key === undefined) throw new Unsure();
      // js-yaml rejects duplicate keys; gray-matter then reports the error, so let it.
      if (Object.prototype.hasOwnProperty.call(result, key) || key === '__proto__') throw new Unsure();
      this.i = j + 1;
      result[key] = this.readValue(trimSpaces(match[2] ?? ''), indent);
    }
  }

  private readSequence(indent: number): YamlValue[] {
    const items: YamlValue[] = [];
    for (;;) {
      const j = this.nextSignificant();
      if (j === undefined) return items;
      const line = this.lineAt(j);
      const lineIndent = indentOf(line);
      if (lineIndent < indent) return items;
      if (lineIndent > indent) throw new Unsure();
      const content = line.slice(indent);
      if (!isDashItem(content)) return items;
      this.i = j + 1;
      const item = trimSpaces(content.slice(1));
      // Nested blocks, mappings in sequences and block scalars in items are left to js-yaml.
      if (item === '' || item.startsWith('#') || isDashItem(item) || KEY_LINE.test(item) || item[0] === '|' || item[0] === '>') {
        throw new Unsure();
      }
      items.push(this.readInline(item, indent));
    }
  }

  private readValue(rest: string, indent: number): YamlValue {
    if (rest === '' || rest.startsWith('#')) {
      const j = this.nextSignificant();
      if (j === undefined) return null;
      const line = this.lineAt(j);
      const lineIndent = indentOf(line);
      const content = line.slice(lineIndent);
      if (lineIndent > indent) {
        return isDashItem(content) ? this.readSequence(lineIndent) : this.readMapping(lineIndent);
      }
      if (lineIndent === indent && isDashItem(content)) return this.readSequence(indent);
      return null;
    }
    if (rest[0] === '|' || rest[0] === '>') return this.readBlockScalar(rest, indent);
    return this.readInline(rest, indent);
  }

  /** A scalar or flow list on the current line, plus plain-scalar continuation lines. */
  private readInline(rest: string, indent: number): YamlValue {
    let value: YamlValue;
    if (rest[0] === '[') {
      value = readFlowList(rest);
    } else if (rest[0] === "'" || rest[0] === '"') {
      const quoted = readQuoted(rest);
      assertOnlyComment(quoted.rest);
      value = quoted.value;
    } else {
      return this.readPlain(rest, indent);
    }
    const j = this.nextSignificant();
    if (j !== undefined && indentOf(this.lineAt(j)) > indent) throw new Unsure();
    return value;
  }

  private readPlain(rest: string, indent: number): YamlValue {
    const hasComment = rest.includes(' #');
    let text = plainText(rest, false);
    let pendingBreaks = 0;
    while (!hasComment && this.i < this.lines.length) {
      const line = this.lineAt(this.i);
      const trimmed = trimSpaces(line);
      if (trimmed === '') {
        pendingBreaks++;
        this.i++;
        continue;
      }
      if (indentOf(line) <= indent || trimmed.startsWith('#')) break;
      if (isDashItem(trimmed) || trimmed.includes(' #') || trimmed.includes(': ') || trimmed.endsWith(':')) {
        throw new Unsure();
      }
      text += pendingBreaks > 0 ? '\n'.repeat(pendingBreaks) : ' ';
      text += trimmed;
      pendingBreaks = 0;
      this.i++;
    }
    const j = this.nextSignificant();
    if (j !== undefined && indentOf(this.lineAt(j)) > indent) throw new Unsure();
    // js-yaml resolves the folded text too (a date and a time on two lines make a timestamp).
    return resolvePlain(text);
  }

  /** `|` and `>` scalars with chomping indicators, following js-yaml's readBlockScalar. */
  private readBlockScalar(header: string, indent: number): string {
    const match = /^([|>])([+-]?)(?: +#.*)?$/.exec(header);
    if (!match) throw new Unsure();
    const folding = match[1] === '>';
    const chomping = match[2];
    let textIndent = -1;
    for (let j = this.i; j < this.lines.length; j++) {
      const line = this.lineAt(j);
      if (indentOf(line) === line.length) {
        continue;
      }
      textIndent = indentOf(line);
      break;
    }
    if (textIndent <= indent) throw new Unsure();
    let result = '';
    let emptyLines = 0;
    let didReadContent = false;
    let atMoreIndented = false;
    for (; this.i < this.lines.length; this.i++) {
      const line = this.lineAt(this.i);
      const lineIndent = indentOf(line);
      if (!didReadContent && lineIndent === line.length && lineIndent > textIndent) throw new Unsure();
      if (lineIndent === line.length && lineIndent <= textIndent) {
        emptyLines++;
        continue;
      }
      if (lineIndent < textIndent) break;
      const content = line.slice(textIndent);
      if (folding) {
        if (content[0] === ' ' || content[0] === '\t') {
          atMoreIndented = true;
          result += '\n'.repeat(didReadContent ? 1 + emptyLines : emptyLines);
        } else if (atMoreIndented) {
          atMoreIndented = false;
          result += '\n'.repeat(emptyLines + 1);
        } else if (emptyLines === 0) {
          if (didReadContent) result += ' ';
        } else {
          result += '\n'.repeat(emptyLines);
        }
      } else {
        result += '\n'.repeat(didReadContent ? 1 + emptyLines : emptyLines);
      }
      didReadContent = true;
      emptyLines = 0;
      result += content;
    }
    if (chomping === '+') {
      result += '\n'.repeat(didReadContent ? 1 + emptyLines : emptyLines);
    } else if (chomping === '' && didReadContent) {
      result += '\n';
    }
    // Blank lines at the end were counted into the scalar; the next key starts after them.
    return result;
  }
}

/**
 * Reads the frontmatter text (between the `---` lines, `\n` line breaks) when it stays inside the
 * subset; `undefined` means "not sure, ask js-yaml".
 */
export function readFrontmatterFast(yamlText: string): YamlMapping | undefined {
  // Tabs, stray CRs and directives are rare and full of special cases; js-yaml also refuses
  // non-printable characters outright, and its error message is the one to show.
  if (/[\t\r]|^%|^\.\.\./m.test(yamlText)) return undefined;
  if (/[^\x20-\x7e\n]/.test(yamlText) && NON_PRINTABLE.test(yamlText)) return undefined;
  if (yamlText === '') return {};
  try {
    const lines = yamlText.split('\n');
    // js-yaml reads the lines joined by breaks; a final empty line is only the last break.
    if (lines[lines.length - 1] === '') lines.pop();
    return new SubsetReader(lines).readDocument();
  } catch (error) {
    if (error instanceof Unsure) return undefined;
    throw error;
  }
}
