/**
 * How a memory entry is stored: line endings unified, trailing spaces and blank edges removed.
 * The host writes entries this way and the Memory tab compares drafts with saved entries the same
 * way, so both import this one definition.
 */
export function normaliseEntry(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((line) => line.replace(/[ \t]+$/, ''))
    .join('\n')
    .trim();
}
