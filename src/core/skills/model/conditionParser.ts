/**
 * The parser of the `if:` language of workflow steps: a hand-written tokenizer and
 * recursive-descent parser, so a condition written by anyone (a shared skill, a model) is data and
 * never code. Hostile text is bounded before any work grows with it: length, then token count,
 * then nesting depth, so recursion can never run deep and every failure is a message, not a throw.
 *
 * Grammar, loosest first (`not` binds looser than a comparison, as in Python, so
 * `not input.mode == 'fast'` reads as "the mode is not fast"; `!` is the same operator):
 *   or      := and (("or" | "||") and)*
 *   and     := not (("and" | "&&") not)*
 *   not     := ("not" | "!") not | compare
 *   compare := primary (("==" | "!=" | "<" | "<=" | ">" | ">=") primary)?
 *   primary := literal | reference | "exists" "(" reference ")" | "(" or ")" | "${" or "}"
 */

export const MAX_CONDITION_CHARS = 2000;
export const MAX_CONDITION_TOKENS = 500;
export const MAX_CONDITION_DEPTH = 32;
export const MAX_REFERENCE_SEGMENTS = 32;
export const REFERENCE_ROOTS: readonly string[] = ['input', 'steps', 'context'];

export type CompareOperator = '==' | '!=' | '<' | '<=' | '>' | '>=';
export type LiteralValue = string | number | boolean | null;

/** Where a node starts in the condition text (1-based), for the evaluator's messages. */
export interface SourcePosition {
  readonly line: number;
  readonly column: number;
}

export type ConditionAst =
  | (SourcePosition & { readonly kind: 'literal'; readonly value: LiteralValue })
  | (SourcePosition & { readonly kind: 'reference'; readonly path: readonly string[] })
  | (SourcePosition & { readonly kind: 'exists'; readonly path: readonly string[] })
  | (SourcePosition & { readonly kind: 'not'; readonly operand: ConditionAst })
  | (SourcePosition & { readonly kind: 'and' | 'or'; readonly operands: readonly ConditionAst[] })
  | (SourcePosition & {
      readonly kind: 'compare';
      readonly operator: CompareOperator;
      readonly left: ConditionAst;
      readonly right: ConditionAst;
    });

export type ParseResult =
  | { readonly ok: true; readonly ast: ConditionAst; readonly references: readonly string[][] }
  | { readonly ok: false; readonly error: string };

/** "column 12", or "line 2, column 3" once the condition spans lines (a YAML block scalar). */
export function describePosition(position: SourcePosition): string {
  return position.line > 1 ? `line ${position.line}, column ${position.column}` : `column ${position.column}`;
}

// ---- Tokens -------------------------------------------------------------------------------------

type Token = SourcePosition &
  (
    | { readonly kind: 'number'; readonly value: number; readonly text: string }
    | { readonly kind: 'string'; readonly value: string; readonly text: string }
    | { readonly kind: 'word'; readonly segments: readonly string[]; readonly text: string }
    | { readonly kind: 'op'; readonly text: string }
    | { readonly kind: 'punct'; readonly text: '(' | ')' | '${' | '}' | ',' }
    | { readonly kind: 'end'; readonly text: '' }
  );

const FORBIDDEN_NAMES = new Set(['__proto__', 'constructor', 'prototype']);
const COMPARE_OPERATORS = new Set<string>(['==', '!=', '<', '<=', '>', '>=']);
const TWO_CHAR_OPERATORS = new Set(['==', '!=', '<=', '>=', '&&', '||']);
const OPERATOR_CHARS = /[=!<>&|~+\-*/%^?:]/;
const NUMBER = /-?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const WORD_START = /[A-Za-z_]/;
const SEGMENT_CHAR = /[A-Za-z0-9_-]/;
const OPERATOR_HINT = 'use ==, !=, <, <=, >, >=, and, or, not';
const ESCAPES: Readonly<Record<string, string>> = { '\\': '\\', "'": "'", '"': '"', n: '\n', t: '\t', r: '\r', '/': '/' };
const KEYWORDS = new Set(['true', 'false', 'null', 'and', 'or', 'not', 'exists']);

/** Thrown inside the parser only; parseCondition turns it into `{ ok: false }`. */
class ConditionSyntaxError extends Error {}

function fail(message: string): never {
  throw new ConditionSyntaxError(message);
}

class Tokenizer {
  private offset = 0;
  private line = 1;
  private lineStart = 0;
  readonly tokens: Token[] = [];

  constructor(private readonly text: string) {}

  run(): Token[] {
    for (;;) {
      this.skipSpace();
      const position = this.position();
      if (this.offset >= this.text.length) {
        this.tokens.push({ ...position, kind: 'end', text: '' });
        return this.tokens;
      }
      if (this.tokens.length >= MAX_CONDITION_TOKENS) {
        fail(`condition has more than ${MAX_CONDITION_TOKENS} tokens; simplify it or split the step`);
      }
      this.tokens.push(this.next(position));
    }
  }

  private next(at: SourcePosition): Token {
    const text = this.text;
    const char = text.charAt(this.offset);
    const following = text.charAt(this.offset + 1);
    if (char === '$' && following === '{') return this.take({ ...at, kind: 'punct', text: '${' }, 2);
    if (char === '(' || char === ')' || char === '}' || char === ',') return this.take({ ...at, kind: 'punct', text: char }, 1);
    if (char === "'" || char === '"') return this.string(at, char);
    if (/[0-9]/.test(char) || (char === '-' && /[0-9]/.test(following))) return this.number(at);
    if (WORD_START.test(char)) return this.word(at);
    if (OPERATOR_CHARS.test(char)) return this.operator(at);
    if (char === '$') fail(`unexpected "$" at ${describePosition(at)}; write a reference as input.x or \${input.x}`);
    if (char === '[' || char === ']') fail(`unexpected "${char}" at ${describePosition(at)}; write an index as a path segment, e.g. items.0`);
    if (char === '{') fail(`unexpected "{" at ${describePosition(at)}; write \${input.x}, not \${{ input.x }}`);
    if (char === '.') fail(`unexpected "." at ${describePosition(at)}; a path must start with input, steps or context`);
    fail(`unexpected character ${JSON.stringify(String.fromCodePoint(text.codePointAt(this.offset) ?? 0))} at ${describePosition(at)}`);
  }

  private take(token: Token, length: number): Token {
    this.offset += length;
    return token;
  }

  private operator(at: SourcePosition): Token {
    let end = this.offset;
    while (end < this.text.length && OPERATOR_CHARS.test(this.text.charAt(end))) end += 1;
    const run = this.text.slice(this.offset, end);
    const two = run.slice(0, 2);
    if (run.startsWith('===') || run.startsWith('!==')) {
      fail(`unknown operator "${run.slice(0, 3)}" at ${describePosition(at)}; use ${run.slice(0, 2)} (comparison is already strict)`);
    }
    if (TWO_CHAR_OPERATORS.has(two)) return this.take({ ...at, kind: 'op', text: two }, 2);
    const first = run.charAt(0);
    // `!!x` is two negations; any other unknown run (`=~`, `!~`, `+`) is reported whole.
    if (first === '<' || first === '>' || (first === '!' && (run.length === 1 || run.charAt(1) === '!'))) {
      return this.take({ ...at, kind: 'op', text: first }, 1);
    }
    if (run === '=') fail(`unknown operator "=" at ${describePosition(at)}; use == to compare`);
    fail(`unknown operator "${run}" at ${describePosition(at)}; ${OPERATOR_HINT}`);
  }

  private number(at: SourcePosition): Token {
    NUMBER.lastIndex = this.offset;
    const text = NUMBER.exec(this.text)?.[0] ?? '';
    const after = this.text.charAt(this.offset + text.length);
    if (after === '.' || SEGMENT_CHAR.test(after)) {
      fail(`malformed number "${text}${after}" at ${describePosition(at)}; write numbers as 3, -2 or 0.5`);
    }
    const value = Number(text);
    if (!Number.isFinite(value)) fail(`number "${text}" at ${describePosition(at)} is too large`);
    return this.take({ ...at, kind: 'number', value, text }, text.length);
  }

  private string(at: SourcePosition, quote: string): Token {
    let value = '';
    let index = this.offset + 1;
    for (;;) {
      if (index >= this.text.length) {
        fail(`unterminated string starting at ${describePosition(at)}; close it with ${quote}`);
      }
      const char = this.text.charAt(index);
      if (char === quote) break;
      if (char === '\n') fail(`unterminated string starting at ${describePosition(at)}; close it with ${quote} before the end of the line`);
      if (char === '\\') {
        const escaped = this.text.charAt(index + 1);
        const simple = ESCAPES[escaped];
        if (simple !== undefined) {
          value += simple;
          index += 2;
          continue;
        }
        const hex = escaped === 'u' ? /^[0-9a-fA-F]{4}/.exec(this.text.slice(index + 2, index + 6)) : null;
        if (hex) {
          value += String.fromCharCode(parseInt(hex[0], 16));
          index += 6;
          continue;
        }
        const shown = escaped === '' ? '\\' : `\\${escaped}`;
        fail(`unknown escape "${shown}" in the string starting at ${describePosition(at)}; use \\\\, \\', \\", \\n, \\t, \\r or \\uXXXX`);
      }
      value += char;
      index += 1;
    }
    const text = this.text.slice(this.offset, index + 1);
    return this.take({ ...at, kind: 'string', value, text }, text.length);
  }

  /** A whole dotted path is one token, so `items.0` is never read as the number `0.`. */
  private word(at: SourcePosition): Token {
    const segments: string[] = [];
    let index = this.offset;
    for (;;) {
      let end = index;
      while (end < this.text.length && SEGMENT_CHAR.test(this.text.charAt(end))) end += 1;
      if (end === index) {
        fail(`expected a property name after "." at ${describePosition(this.positionOf(index))}`);
      }
      segments.push(this.text.slice(index, end));
      index = end;
      if (this.text.charAt(index) !== '.') break;
      index += 1;
    }
    const text = this.text.slice(this.offset, index);
    return this.take({ ...at, kind: 'word', segments, text }, text.length);
  }

  private skipSpace(): void {
    while (this.offset < this.text.length && /\s/.test(this.text.charAt(this.offset))) {
      if (this.text.charAt(this.offset) === '\n') {
        this.line += 1;
        this.lineStart = this.offset + 1;
      }
      this.offset += 1;
    }
  }

  private position(): SourcePosition {
    return this.positionOf(this.offset);
  }

  /** Columns count code points, so an emoji earlier on the line does not shift them. */
  private positionOf(offset: number): SourcePosition {
    return { line: this.line, column: [...this.text.slice(this.lineStart, offset)].length + 1 };
  }
}

// ---- Parser -------------------------------------------------------------------------------------

function isWord(token: Token, name: string): boolean {
  return token.kind === 'word' && token.segments.length === 1 && token.segments[0] === name;
}

function shown(token: Token): string {
  return token.kind === 'end' ? 'the end of the condition' : JSON.stringify(token.text);
}

class Parser {
  private index = 0;
  private depth = 0;
  readonly references: string[][] = [];
  private readonly seen = new Set<string>();

  constructor(private readonly tokens: readonly Token[]) {}

  parse(): ConditionAst {
    if (this.peek().kind === 'end') {
      fail('empty condition; write an expression such as input.enabled or steps.fetch.output.count > 0');
    }
    const ast = this.or();
    const rest = this.peek();
    if (rest.kind === 'punct' && (rest.text === ')' || rest.text === '}')) {
      fail(`unexpected "${rest.text}" at ${describePosition(rest)}; it closes nothing`);
    }
    if (rest.kind !== 'end') {
      fail(`unexpected ${shown(rest)} at ${describePosition(rest)}; expected ==, !=, <, <=, >, >=, and, or, or the end of the condition`);
    }
    return ast;
  }

  private peek(): Token {
    // The tokenizer always ends the list with an `end` token, and nothing advances past it.
    return this.tokens[Math.min(this.index, this.tokens.length - 1)] ?? fail('no tokens');
  }

  private advance(): Token {
    const token = this.peek();
    if (token.kind !== 'end') this.index += 1;
    return token;
  }

  private enter(at: SourcePosition): void {
    this.depth += 1;
    if (this.depth > MAX_CONDITION_DEPTH) {
      fail(`condition nests deeper than ${MAX_CONDITION_DEPTH} levels at ${describePosition(at)}; simplify it`);
    }
  }

  private or(): ConditionAst {
    return this.chain('or', (token) => isWord(token, 'or') || (token.kind === 'op' && token.text === '||'), () => this.and());
  }

  private and(): ConditionAst {
    return this.chain('and', (token) => isWord(token, 'and') || (token.kind === 'op' && token.text === '&&'), () => this.not());
  }

  /** `a or b or c` becomes one node with three operands: flat, so a long chain never recurses deeply. */
  private chain(kind: 'and' | 'or', isOperator: (token: Token) => boolean, operand: () => ConditionAst): ConditionAst {
    const first = operand();
    if (!isOperator(this.peek())) return first;
    const operands = [first];
    while (isOperator(this.peek())) {
      this.advance();
      operands.push(operand());
    }
    return { kind, line: first.line, column: first.column, operands };
  }

  private not(): ConditionAst {
    const token = this.peek();
    if (!isWord(token, 'not') && !(token.kind === 'op' && token.text === '!')) return this.compare();
    this.advance();
    this.enter(token);
    const operand = this.not();
    this.depth -= 1;
    return { kind: 'not', line: token.line, column: token.column, operand };
  }

  private compare(): ConditionAst {
    const left = this.primary();
    const operator = this.peek();
    if (operator.kind !== 'op' || !COMPARE_OPERATORS.has(operator.text)) return left;
    this.advance();
    const right = this.primary();
    const next = this.peek();
    if (next.kind === 'op' && COMPARE_OPERATORS.has(next.text)) {
      fail(`comparisons cannot be chained (the second "${next.text}" is at ${describePosition(next)}); join them with and`);
    }
    return { kind: 'compare', line: operator.line, column: operator.column, operator: operator.text as CompareOperator, left, right };
  }

  private primary(): ConditionAst {
    const before = this.tokens[this.index - 1];
    const token = this.advance();
    const at = { line: token.line, column: token.column };
    if (token.kind === 'number' || token.kind === 'string') return { kind: 'literal', ...at, value: token.value };
    if (token.kind === 'punct' && (token.text === '(' || token.text === '${')) {
      this.enter(token);
      const inner = this.or();
      this.close(token.text === '(' ? ')' : '}', token);
      this.depth -= 1;
      return inner;
    }
    if (token.kind !== 'word' || (token.segments.length === 1 && ['and', 'or', 'not'].includes(token.segments[0] ?? ''))) {
      const after = before === undefined ? '' : ` after ${shown(before)}`;
      fail(`expected a value${after} at ${describePosition(token)}, found ${shown(token)}`);
    }
    if (isWord(token, 'true') || isWord(token, 'false')) return { kind: 'literal', ...at, value: token.text === 'true' };
    if (isWord(token, 'null')) return { kind: 'literal', ...at, value: null };
    if (isWord(token, 'exists')) return { kind: 'exists', ...at, path: this.existsArgument(token) };
    const call = this.peek();
    if (call.kind === 'punct' && call.text === '(') {
      fail(`unknown function "${token.text}" at ${describePosition(token)}; the only function is exists(reference)`);
    }
    return { kind: 'reference', ...at, path: this.reference(token) };
  }

  private close(closer: ')' | '}', opener: Token): void {
    const token = this.advance();
    if (token.kind === 'punct' && token.text === closer) return;
    const open = `"${opener.text}" at ${describePosition(opener)}`;
    if (token.kind === 'end') fail(`missing "${closer}" to close ${open}`);
    fail(`unexpected ${shown(token)} at ${describePosition(token)}; expected an operator or "${closer}" to close ${open}`);
  }

  private existsArgument(name: Token): string[] {
    const usage = 'e.g. exists(input.x)';
    const open = this.advance();
    if (open.kind !== 'punct' || open.text !== '(') fail(`expected "(" after exists at ${describePosition(open)}; ${usage}`);
    const wrapper = this.peek();
    const wrapped = wrapper.kind === 'punct' && wrapper.text === '${';
    if (wrapped) this.advance();
    const argument = this.advance();
    if (argument.kind !== 'word' || KEYWORDS.has(argument.text)) {
      fail(`exists at ${describePosition(name)} needs a reference, found ${shown(argument)}; ${usage}`);
    }
    const path = this.reference(argument);
    if (wrapped) this.close('}', wrapper);
    const end = this.advance();
    if (end.kind === 'punct' && end.text === ')') return path;
    if (end.kind === 'punct' && end.text === ',') fail(`exists at ${describePosition(name)} takes exactly one reference; ${usage}`);
    fail(`expected ")" to close exists( at ${describePosition(open)}, found ${shown(end)}`);
  }

  private reference(token: Token & { readonly kind: 'word' }): string[] {
    const segments = [...token.segments];
    const forbidden = segments.find((segment) => FORBIDDEN_NAMES.has(segment));
    if (forbidden !== undefined) {
      fail(`property name "${forbidden}" at ${describePosition(token)} is not allowed in a reference`);
    }
    const root = segments[0] ?? '';
    if (!REFERENCE_ROOTS.includes(root)) {
      const keyword = segments.length === 1 && KEYWORDS.has(root.toLowerCase()) ? `; did you mean ${root.toLowerCase()}?` : '';
      const quote = segments.length === 1 && keyword === '' ? `; to compare with text, quote it: '${root}'` : '';
      fail(`unknown reference root "${root}" at ${describePosition(token)}; references start with input, steps or context${keyword}${quote}`);
    }
    if (segments.length > MAX_REFERENCE_SEGMENTS) {
      fail(`reference at ${describePosition(token)} has ${segments.length} segments; the limit is ${MAX_REFERENCE_SEGMENTS}`);
    }
    const key = segments.join('\u0000');
    if (!this.seen.has(key)) {
      this.seen.add(key);
      this.references.push(segments);
    }
    return segments;
  }
}

/** Parses an `if:` condition; never throws, whatever the text. */
export function parseCondition(text: string): ParseResult {
  if (text.length > MAX_CONDITION_CHARS) {
    return { ok: false, error: `condition is ${text.length} characters long; the limit is ${MAX_CONDITION_CHARS}` };
  }
  try {
    const parser = new Parser(new Tokenizer(text).run());
    const ast = parser.parse();
    return { ok: true, ast, references: parser.references };
  } catch (error) {
    if (error instanceof ConditionSyntaxError) return { ok: false, error: error.message };
    throw error;
  }
}
