import { normaliseEntry } from '../../shared/system/memoryEntry';
/**
 * The memory file format: entries separated by a line holding only `§`. Reading is tolerant
 * (CRLF, spaces around the `§`, blank lines, a BOM, empty entries); writing is canonical, so the
 * character count a limit applies to is the count of the file as it will be on disk.
 */

export const ENTRY_SEPARATOR = '§';

/** A line holding only the separator, with any spaces or tabs around it. */
const SEPARATOR_LINE = /^[ \t]*§[ \t]*$/;

/** Entries of a memory file, trimmed, empty ones dropped, in file order. */
export function parseMemoryFile(text: string): string[] {
  const lines = text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n').split('\n');
  const entries: string[] = [];
  let current: string[] = [];
  const flush = (): void => {
    const entry = normaliseEntry(current.join('\n'));
    if (entry) entries.push(entry);
    current = [];
  };
  for (const line of lines) {
    if (SEPARATOR_LINE.test(line)) flush();
    else current.push(line);
  }
  flush();
  return entries;
}

/** The canonical file text: entries joined by `\n§\n`, ending with a newline (empty for no entries). */
export function serializeMemoryFile(entries: readonly string[]): string {
  const kept = entries.map(normaliseEntry).filter((e) => e.length > 0);
  return kept.length === 0 ? '' : `${kept.join(`\n${ENTRY_SEPARATOR}\n`)}\n`;
}


/** Characters as a person counts them (code points), so an emoji is one, not two. */
export function charCount(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    // Count a surrogate pair once.
    if (code < 0xdc00 || code > 0xdfff) n++;
  }
  return n;
}

/** Size of the file these entries serialise to: what the memory limits count. */
export function serializedSize(entries: readonly string[]): number {
  return charCount(serializeMemoryFile(entries));
}

/** Why a text cannot be an entry, or undefined when it can. */
export function entryProblem(content: string): string | undefined {
  if (normaliseEntry(content) === '') return 'the content is empty';
  if (content.split(/\r\n?|\n/).some((line) => SEPARATOR_LINE.test(line))) {
    return `a line holding only "${ENTRY_SEPARATOR}" separates entries in the file, so an entry cannot contain one; write it on one line with other text, or split the note into separate entries`;
  }
  return undefined;
}
