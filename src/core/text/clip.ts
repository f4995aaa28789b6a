/**
 * The one family of "make this text fit" helpers. Every cut is counted in UTF-16 code units (what
 * `length` says) but never splits a surrogate pair, so a cut string is still valid text.
 */

function isClean(text: string): boolean {
  const last = text.length - 1;
  for (let i = 0; i <= last; i++) {
    const code = text.charCodeAt(i);
    if (code === 32) {
      if (i === 0 || i === last || text.charCodeAt(i + 1) === 32) return false;
    } else if (code < 32 || code === 127 || (code > 127 && /\s/.test(text.charAt(i)))) {
      return false;
    }
  }
  return true;
}

/** One line of text: control characters and runs of white space become single spaces, trimmed. */
export function oneLine(text: string): string {
  // Most names and descriptions are clean already; a scan is much cheaper than a replace.
  return isClean(text) ? text : text.replace(/[\s\u0000-\u001f\u007f]+/g, ' ').trim();
}

/** The first `count` code units, one fewer when that would end in half a surrogate pair. */
function head(text: string, count: number): string {
  const cut = text.slice(0, Math.max(0, count));
  return /[\ud800-\udbff]$/.test(cut) ? cut.slice(0, -1) : cut;
}

/** At most `max` characters, ending in `…` when cut. */
export function clipEnd(text: string, max: number): string {
  return text.length <= max ? text : `${head(text, max - 1)}…`;
}

/** `oneLine` then `clipEnd`: for excerpts shown on one line. */
export function clipLine(text: string, max: number): string {
  return clipEnd(oneLine(text), max);
}

/** At most `max` characters, cut at a word boundary when one is near, trailing punctuation dropped, ending in `…`. */
export function clipWords(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = head(text, max - 1);
  const space = cut.lastIndexOf(' ');
  if (space >= max * 0.6) cut = cut.slice(0, space);
  return `${cut.replace(/[\s,;:.\-–—]+$/u, '')}…`;
}

/** The first `max` characters and a note of how many more there were (for long tool output the model or a person reads). */
export function clipWithCount(text: string, max: number): string {
  return text.length <= max ? text : `${head(text, max)}\n… (${text.length - max} more characters)`;
}
