import { createHash } from 'node:crypto';
import type { SkillRecord } from '../model/skillTypes';

/**
 * What is sent to the embeddings endpoint for a skill: the words written to say what it is for
 * (name, description, use cases, example queries) and its headings, never the body or any file.
 * About 1,000 tokens at most: local servers (Ollama's default context is 2,048 tokens) truncate
 * or refuse longer inputs, and the first lines carry the meaning anyway.
 */
export const MAX_SKILL_TEXT_CHARS = 4_000;
/** A message is embedded up to here (a pasted log of 100,000 characters is not sent whole). */
export const MAX_QUERY_CHARS = 4_000;

/** One text per skill; the same record always gives the same text. */
export function embeddingText(record: SkillRecord): string {
  const lines = [record.folderName && record.folderName !== record.name ? `${record.name} (${record.folderName})` : record.name, record.description];
  if (record.useCases.length > 0) lines.push(`Use cases: ${record.useCases.join('; ')}`);
  if (record.exampleQueries.length > 0) lines.push(`Example requests: ${record.exampleQueries.join('; ')}`);
  if (record.headings.length > 0) lines.push(`Sections: ${record.headings.join('; ')}`);
  return clip(lines.filter((line) => line.trim() !== '').join('\n'), MAX_SKILL_TEXT_CHARS);
}

/** The part of a message that is embedded; empty when it holds nothing but white space. */
export function embeddingQuery(message: string): string {
  if (typeof message !== 'string') return '';
  return clip(message.trim(), MAX_QUERY_CHARS);
}

/** Cuts at a white space near the limit, never inside a surrogate pair. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max;
  const space = text.lastIndexOf(' ', max);
  if (space > max * 0.8) end = space;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return text.slice(0, end);
}

/** The cache key of a text under a model: a vector is reused only for the same text and model. */
export function contentHash(text: string): string {
  return createHash('sha256').update(text).digest('base64url').slice(0, 22);
}

const texts = new WeakMap<SkillRecord, { text: string; hash: string }>();

/** The record's text and hash, worked out once per record object (the index reuses unchanged ones). */
export function embeddingKey(record: SkillRecord): { text: string; hash: string } {
  let known = texts.get(record);
  if (!known) {
    const text = embeddingText(record);
    known = { text, hash: contentHash(text) };
    texts.set(record, known);
  }
  return known;
}
