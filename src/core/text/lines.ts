/** Offsets where each line starts, counting CRLF, LF and lone CR as VS Code (and the parser) does. */
export function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (char === 13 /* \r */) {
      if (text.charCodeAt(i + 1) === 10) i++;
      starts.push(i + 1);
    } else if (char === 10 /* \n */) {
      starts.push(i + 1);
    }
  }
  return starts;
}

/** The 0-based line that holds `offset`, given the starts from `lineStarts` (binary search). */
export function lineAt(starts: readonly number[], offset: number): number {
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    // low < mid <= high < length: the start exists, the check only narrows the type.
    const start = starts[mid];
    if (start === undefined) break;
    if (start <= offset) low = mid;
    else high = mid - 1;
  }
  return low;
}
