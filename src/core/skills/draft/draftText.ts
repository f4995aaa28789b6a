import { clipWords as clip, oneLine } from '../../text/clip';
import { isSecretName } from '../../security/secretVocabulary';

/**
 * Small text helpers shared by the "save as a skill" drafting files: text from a transcript is
 * untrusted and unbounded, so everything that reaches a draft goes through these.
 */

/** Inline code whose delimiter is longer than any backtick run inside, so the text cannot end it early. */
export function codeSpan(text: string): string {
  const flat = oneLine(text);
  const longest = Math.max(0, ...[...flat.matchAll(/`+/g)].map((match) => match[0].length));
  const ticks = '`'.repeat(longest + 1);
  const pad = flat.startsWith('`') || flat.endsWith('`') ? ' ' : '';
  return `${ticks}${pad}${flat}${pad}${ticks}`;
}

/** A fenced block longer than any backtick run in the text. */
export function fencedBlock(text: string, info = ''): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((match) => match[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${info}\n${text}\n${fence}`;
}

/**
 * Quoted for prose: straight double quotes inside become single ones so the quote stays readable,
 * and Markdown links become "text (target)": a quoted request is not a link of the skill.
 */
export function quoted(text: string): string {
  return `"${oneLine(text).replace(/(!?)\[([^\]]*)\]\(([^)]*)\)/g, '$2 ($3)').replace(/"/g, "'")}"`;
}

// Token shapes that are credentials whatever surrounds them. Placeholders ("sk-xxxx") are short or
// repetitive and mostly fail the length floors.
const TOKEN_SHAPES: readonly RegExp[] = [
  /\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{20,}/g,
  /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{30,}/g,
  /\bgithub_pat_[A-Za-z0-9_]{30,}/g,
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/g,
  /\bAKIA[0-9A-Z]{16}\b/g,
  /\bAIza[0-9A-Za-z_-]{30,}/g,
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g,
];
const BEARER = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{12,}/g;
// NAME=value and NAME: value; --name value and --name=value. The value goes when the name says it holds a secret.
const ASSIGNMENT = /(?<![\w-])([A-Za-z_][\w.-]*)(\s*[:=]\s*)(["']?)([^\s"'`,;]{6,})\3/g;
const FLAG = /(?<![\w-])(--?[A-Za-z][\w.-]*)(\s+|=)(["']?)([^\s"'`,;]{6,})\3/g;
const REDACTED = '<redacted>';

/**
 * Text with credentials replaced by `<redacted>`: a skill is shared and read by models, so a key
 * typed into a command during the session must not travel into it.
 */
export function redactSecrets(text: string): string {
  let out = text;
  for (const shape of TOKEN_SHAPES) out = out.replace(shape, REDACTED);
  out = out.replace(BEARER, `$1 ${REDACTED}`);
  const hide = (whole: string, name: string, sep: string, quote: string, value: string): string =>
    isSecretName(name.replace(/^-+/, '')) && value !== REDACTED ? `${name}${sep}${quote}${REDACTED}${quote}` : whole;
  return out.replace(ASSIGNMENT, hide).replace(FLAG, hide);
}

/** The items of Markdown lists (bullets and numbers) outside fenced code, each on one line. */
export function markdownListItems(text: string, maxChars: number): string[] {
  const items: string[] = [];
  let fenced = false;
  for (const line of text.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const item = fenced ? undefined : /^\s{0,3}(?:[-*+]|\d{1,2}[.)])\s+(.+)$/.exec(line)?.[1];
    if (item && /[\p{L}\p{N}]/u.test(item)) items.push(clip(oneLine(item), maxChars));
  }
  return items;
}
