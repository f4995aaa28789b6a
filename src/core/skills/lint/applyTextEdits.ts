import { lineStarts } from '../../text/lines';
import type { TextEdit } from '../model/skillTypes';

/**
 * Applies a quick fix's edits to a text (for the CLI's --fix and for tests; the editor applies
 * them itself). Edits must not overlap; positions past a line's end are clamped to it.
 */
export function applyTextEdits(text: string, edits: readonly TextEdit[]): string {
  const starts = lineStarts(text);
  const offset = (line: number, column: number): number => {
    const start = starts[line];
    if (start === undefined) return text.length;
    const next = starts[line + 1] ?? text.length;
    const content = text.slice(start, next).replace(/\r?\n$|\r$/, '').length;
    return start + Math.min(column, content);
  };
  const resolved = edits
    .map((edit) => ({
      start: offset(edit.range.startLine, edit.range.startColumn),
      end: offset(edit.range.endLine, edit.range.endColumn),
      newText: edit.newText,
    }))
    .sort((a, b) => b.start - a.start || b.end - a.end);
  let result = text;
  for (const edit of resolved) {
    result = result.slice(0, edit.start) + edit.newText + result.slice(edit.end);
  }
  return result;
}
