import type { SkillRecord } from '../model/skillTypes';
import { BROWSER_SEARCH_LIMIT } from './browserSearch';
import type { NearestQueryOptions, SemanticHit, SemanticSource } from './embeddingIndex';
import { fuseRanks } from './rankFusion';
import type { SkillSearch } from './skillSearch';

/**
 * Hybrid ranking: the lexical ranking of SkillSearch and the skills nearest by embedding, fused by
 * reciprocal rank (rankFusion.ts). Whenever the embeddings cannot answer (off, still indexing,
 * failing, late), the result is the lexical one unchanged.
 */

/** Lexical hits read for fusion: deeper than the three suggested, so a skill second by words but first by meaning can win. */
export const LEXICAL_DEPTH = 20;
/** Nearest skills read for fusion in suggestions and the overlap check. */
export const SEMANTIC_DEPTH = 20;
/**
 * Nearest skills added to a Skills tab search. A query always has nearest skills, related or not;
 * ten is a page of "by meaning" without burying the lexical matches under neighbours.
 */
export const BROWSER_SEMANTIC_DEPTH = 10;
const DEFAULT_SUGGESTIONS = 3;

export interface HybridHit {
  readonly record: SkillRecord;
  /** The fused score (reciprocal ranks summed); without embeddings, 1 / (60 + lexical rank). */
  readonly score: number;
  /** 1-based rank in the lexical list, when the skill is in it. */
  readonly lexicalRank?: number;
  readonly semanticRank?: number;
  /** Cosine similarity to the message, when the skill was among the nearest. */
  readonly cosine?: number;
}

export interface HybridSuggestOptions extends NearestQueryOptions {
  /** Most suggestions; default 3. */
  readonly top?: number;
  readonly filter?: (record: SkillRecord) => boolean;
}

/** Fuses a lexical ranking with a semantic one; `semantic` undefined gives the lexical order. */
export function fuseHits(lexical: readonly SkillRecord[], semantic: readonly SemanticHit[] | undefined, top: number): HybridHit[] {
  const byFile = new Map<string, SkillRecord>();
  for (const record of lexical) if (!byFile.has(record.file)) byFile.set(record.file, record);
  const cosine = new Map<string, number>();
  for (const hit of semantic ?? []) {
    if (!byFile.has(hit.record.file)) byFile.set(hit.record.file, hit.record);
    if (!cosine.has(hit.record.file)) cosine.set(hit.record.file, hit.score);
  }
  const lists = [lexical.map((record) => record.file), ...(semantic ? [semantic.map((hit) => hit.record.file)] : [])];
  return fuseRanks(lists, { top }).map((fused) => {
    const [lexicalRank, semanticRank] = fused.ranks;
    const score = cosine.get(fused.key);
    return {
      record: byFile.get(fused.key) as SkillRecord,
      score: fused.score,
      ...(lexicalRank !== undefined ? { lexicalRank } : {}),
      ...(semanticRank !== undefined ? { semanticRank } : {}),
      ...(score !== undefined ? { cosine: score } : {}),
    };
  });
}

/**
 * The skills worth suggesting with a chat message. The message's embedding is requested first and
 * the lexical ranking worked out while it travels; a late or failed embedding gives the lexical
 * suggestions, exactly as without embeddings (the semantic source enforces the deadline).
 */
export async function hybridSuggest(search: SkillSearch, semantic: SemanticSource | undefined, message: string, options: HybridSuggestOptions = {}): Promise<HybridHit[]> {
  const top = Math.max(0, Math.floor(options.top ?? DEFAULT_SUGGESTIONS));
  if (top === 0 || typeof message !== 'string') return [];
  const pending = semantic?.nearest(message, { top: SEMANTIC_DEPTH, ...nearestOptions(options) }).catch(() => undefined);
  const filter = options.filter;
  const lexical = search.suggest(message, { top: pending ? LEXICAL_DEPTH : top, ...(filter ? { filter } : {}) }).map((hit) => hit.record);
  const near = await pending;
  return fuseHits(lexical, near && filter ? near.filter((hit) => filter(hit.record)) : near, top);
}

/**
 * The Skills tab's search with meaning: its lexical result (`browserSearch`: active skills, then
 * matching inactive copies) fused with the nearest skills. Undefined when the embeddings cannot
 * answer, so the caller keeps the lexical list it already showed.
 */
export async function hybridBrowserSearch(
  query: string,
  lexicalFiles: readonly string[],
  semantic: SemanticSource,
  options: NearestQueryOptions & { readonly limit?: number } = {},
): Promise<string[] | undefined> {
  if (query.trim() === '') return [];
  const near = await semantic.nearest(query, { top: BROWSER_SEMANTIC_DEPTH, ...nearestOptions(options) }).catch(() => undefined);
  if (!near) return undefined;
  const lists = [lexicalFiles, near.map((hit) => hit.record.file)];
  return fuseRanks(lists, { top: options.limit ?? BROWSER_SEARCH_LIMIT }).map((fused) => fused.key);
}

function nearestOptions(options: NearestQueryOptions): NearestQueryOptions {
  return {
    ...(options.deadlineMs !== undefined ? { deadlineMs: options.deadlineMs } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  };
}
