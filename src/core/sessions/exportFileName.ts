/** Longest file name stem an export suggests; the save dialog lets the person change it. */
const MAX_STEM = 60;
/** Names Windows refuses whatever the extension (`con.md` cannot be created there). */
const RESERVED = /^(con|prn|aux|nul|com\d|lpt\d)$/i;

/**
 * A file name for a session exported as Markdown, from its title: characters no file system takes
 * (`\ / : * ? " < > |`, control characters) and Markdown emphasis left out, spaces as hyphens, cut at a
 * word near 60 characters. Falls back to the session id when the title leaves nothing usable.
 */
export function exportFileName(title: string, sessionId: string): string {
  const cleaned = title
    .normalize('NFC')
    .replace(/[\u0000-\u001f\u007f\\/:*?"<>|`#*_~[\]]+/g, ' ')
    .replace(/[\s\u00a0]+/g, ' ')
    .trim()
    .replace(/^[.\s-]+|[.\s-]+$/g, '');
  let stem = cleaned.replace(/ /g, '-');
  if (stem.length > MAX_STEM) {
    const cut = stem.slice(0, MAX_STEM);
    const dash = cut.lastIndexOf('-');
    // Never half an emoji: a lone high surrogate at the cut is dropped with the trailing dots and dashes.
    stem = (dash > MAX_STEM / 2 ? cut.slice(0, dash) : cut).replace(/[\uD800-\uDBFF]$/, '').replace(/[.-]+$/, '');
  }
  if (!stem || RESERVED.test(stem) || stem === 'Untitled-session') stem = `session-${sessionId}`;
  return `${stem}.md`;
}
