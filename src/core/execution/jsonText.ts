import { lineAt, lineStarts } from '../text/lines';

/**
 * JSON typed by people (`--args` on a command line, an example file) with the place it breaks:
 * JSON.parse says "Unexpected token" without a position on some Node versions, so a failed parse
 * is scanned again here to name the line, the column and what was expected there.
 */

export type JsonText =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly line: number; readonly column: number; readonly offset: number; readonly message: string };

export function parseJsonText(text: string): JsonText {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    const problem = locateJsonError(text) ?? { offset: 0, message: error instanceof Error ? error.message : String(error) };
    const starts = lineStarts(text);
    const line = lineAt(starts, problem.offset);
    const column = problem.offset - (starts[line] ?? 0);
    return { ok: false, line: line + 1, column: column + 1, offset: problem.offset, message: problem.message };
  }
}

class JsonSyntaxError extends Error {
  constructor(
    readonly offset: number,
    message: string,
  ) {
    super(message);
  }
}

const found = (text: string, at: number): string => {
  if (at >= text.length) return 'the text ends';
  const char = text[at] ?? '';
  if (char === "'") return `found ' (JSON strings and names use double quotes)`;
  if (char === '/') return 'found / (JSON has no comments)';
  return `found ${JSON.stringify(char)}`;
};

/** The first syntax error of text, or undefined when it is valid JSON. */
export function locateJsonError(text: string): { offset: number; message: string } | undefined {
  let at = 0;
  const fail = (message: string): never => {
    throw new JsonSyntaxError(at, message);
  };
  const space = (): void => {
    while (at < text.length && ' \t\n\r'.includes(text[at] ?? '')) at++;
  };
  const literal = (word: string): void => {
    if (text.startsWith(word, at)) at += word.length;
    else fail(`expected ${word} but ${found(text, at)}`);
  };
  const digits = (what: string): void => {
    const start = at;
    while (/[0-9]/.test(text[at] ?? '')) at++;
    if (at === start) fail(`expected a digit ${what} but ${found(text, at)}`);
  };
  const number = (): void => {
    if (text[at] === '-') at++;
    if (text[at] === '0') at++;
    else digits('in the number');
    if (text[at] === '.') {
      at++;
      digits('after the decimal point');
    }
    if (text[at] === 'e' || text[at] === 'E') {
      at++;
      if (text[at] === '+' || text[at] === '-') at++;
      digits('in the exponent');
    }
  };
  const string = (): void => {
    at++;
    for (;;) {
      if (at >= text.length) fail('the text ends inside a string; close it with "');
      const char = text.charCodeAt(at);
      if (char === 34 /* " */) {
        at++;
        return;
      }
      if (char < 0x20) fail('a line break or control character inside a string must be escaped (write \\n, \\t)');
      if (char === 92 /* \ */) {
        at++;
        const escape = text[at] ?? '';
        if (escape === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(at + 1, at + 5))) fail('\\u must be followed by four hex digits');
          at += 5;
        } else if ('"\\/bfnrt'.includes(escape) && escape !== '') {
          at++;
        } else {
          fail(`\\${escape} is not a JSON escape; write \\\\ for a backslash`);
        }
        continue;
      }
      at++;
    }
  };
  const value = (): void => {
    space();
    const char = text[at];
    if (char === '{') return object();
    if (char === '[') return array();
    if (char === '"') return string();
    if (char === '-' || /[0-9]/.test(char ?? '')) return number();
    if (char === 't') return literal('true');
    if (char === 'f') return literal('false');
    if (char === 'n') return literal('null');
    fail(`expected a JSON value (object, list, string, number, true, false or null) but ${found(text, at)}`);
  };
  const object = (): void => {
    at++;
    space();
    if (text[at] === '}') {
      at++;
      return;
    }
    for (;;) {
      space();
      if (text[at] === '}') fail('a comma before } is not allowed in JSON; remove it');
      if (/[A-Za-z_$]/.test(text[at] ?? '')) fail('property names must be in double quotes, e.g. {"name": 1}');
      if (text[at] !== '"') fail(`expected a property name in double quotes but ${found(text, at)}`);
      string();
      space();
      if (text[at] !== ':') fail(`expected : after the property name but ${found(text, at)}`);
      at++;
      value();
      space();
      if (text[at] === ',') {
        at++;
        continue;
      }
      if (text[at] === '}') {
        at++;
        return;
      }
      fail(`expected , or } after the property value but ${found(text, at)}`);
    }
  };
  const array = (): void => {
    at++;
    space();
    if (text[at] === ']') {
      at++;
      return;
    }
    for (;;) {
      space();
      if (text[at] === ']') fail('a comma before ] is not allowed in JSON; remove it');
      value();
      space();
      if (text[at] === ',') {
        at++;
        continue;
      }
      if (text[at] === ']') {
        at++;
        return;
      }
      fail(`expected , or ] after the list item but ${found(text, at)}`);
    }
  };
  try {
    value();
    space();
    if (at < text.length) fail(`unexpected text after the JSON value (${found(text, at).replace(/^found /, '')})`);
    return undefined;
  } catch (error) {
    if (error instanceof JsonSyntaxError) return { offset: error.offset, message: error.message };
    // Thousands of nested brackets exhaust the stack of this scanner as they do JSON.parse's.
    if (error instanceof RangeError) return { offset: at, message: 'the JSON nests too deeply to be read' };
    throw error;
  }
}
