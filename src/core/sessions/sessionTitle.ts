/**
 * Session titles: the draft written after the first exchange, and the cleaning every stored title
 * goes through. A title is a record of its own in the session file (sessionRecords.ts); the
 * newest one wins when the file is read.
 */

/** Longest drafted title; a longer first sentence is cut on a word. */
export const MAX_TITLE_CHARS = 60;
const FILLER = /^(?:(?:hi|hello|hey|ok|okay|so)\b[\s,!.]*|(?:please|pls|kindly)\s+|(?:can|could|would|will)\s+you\s+(?:please\s+)?|i\s+(?:need|want|would like)\s+(?:you\s+)?to\s+|help\s+me\s+(?:to\s+)?)/i;

function plainFirstSentence(text: string, dropFiller: boolean): string {
  const flat = text
    .replace(/```[\s\S]*?(?:```|$)/g, ' ')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/https?:\/\/\S+/g, ' ')
    .replace(/`([^`]*)`/g, '$1')
    .replace(/^[\s>#*+-]+/gm, '');
  // Each line counts as a sentence of its own (a heading, a greeting), as do sentences within a line.
  for (const line of flat.split('\n')) {
    let sentence = line.replace(/\s+/g, ' ').trim();
    for (let i = 0; dropFiller && i < 4; i++) {
      const next = sentence.replace(FILLER, '');
      if (next === sentence) break;
      sentence = next;
    }
    sentence = (sentence.split(/(?<=[.!?])\s+/)[0] ?? '').replace(/[\s.?!:;,]+$/, '').trim();
    if (/[\p{L}\p{N}]/u.test(sentence)) return sentence;
  }
  return '';
}

/**
 * A short deterministic title from the first exchange: the gist of the user's first sentence
 * (greetings, "please", "can you" and Markdown dropped), else of the reply, cut on a word.
 */
export function draftTitle(firstUserMessage: string, firstReply = ''): string {
  let title = plainFirstSentence(firstUserMessage, true);
  if (title.replace(/[^\p{L}\p{N}]/gu, '').length < 3) title = plainFirstSentence(firstReply, false);
  if (title.replace(/[^\p{L}\p{N}]/gu, '').length < 3) return 'Untitled session';
  if (title.length > MAX_TITLE_CHARS) {
    const cut = title.slice(0, MAX_TITLE_CHARS - 1);
    const space = cut.lastIndexOf(' ');
    title = `${(space > MAX_TITLE_CHARS / 2 ? cut.slice(0, space) : cut).replace(/[\s.,;:-]+$/, '')}…`;
  }
  return title.charAt(0).toUpperCase() + title.slice(1);
}

/** Longest title stored; a title from the model or the user is cut to it. */
export const MAX_STORED_TITLE_CHARS = 200;

/** A title as stored: one line, spaces collapsed, at most MAX_STORED_TITLE_CHARS; undefined when nothing visible is left. */
export function cleanTitle(title: string): string | undefined {
  const clean = title.replace(/\s+/g, ' ').trim().slice(0, MAX_STORED_TITLE_CHARS);
  return clean === '' ? undefined : clean;
}
