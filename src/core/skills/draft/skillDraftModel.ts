import type { ChatModel } from '../../llm/chatTypes';
import { ModelError } from '../../llm/chatTypes';
import { describeError } from '../../base/logger';
import type { SkillDraftText } from './skillDraft';
import { draftName, draftSkill } from './skillDraft';
import type { DraftCheck, DraftCheckOptions } from './skillDraftCheck';
import { checkDraft } from './skillDraftCheck';
import type { TranscriptFacts } from './draftFacts';
import { draftPromptMessages, extractSkillMd } from './skillDraftPrompt';
import { isValidSkillName, slugifySkillName } from '../lint/identityRules';

/**
 * "Save this as a skill" drafting: with a model, ask it for a SKILL.md and keep its answer when
 * the lint accepts it; without one, or when its answer cannot be used, fill the template from the
 * facts. The result always holds a draft that lints without errors, and says which path made it.
 */

export interface DraftResult {
  readonly draft: SkillDraftText;
  readonly source: 'model' | 'template';
  /** Why the template was used although a model was given; absent otherwise. */
  readonly fallbackReason?: string;
  /** Repairs made to the model's text (e.g. a name that was not a valid skill name). */
  readonly notes: readonly string[];
  readonly check: DraftCheck;
  readonly modelId?: string;
  readonly durationMs: number;
}

export interface ModelDraftOptions extends DraftCheckOptions {
  /** Give up on the model after this long and use the template; default 60 s. */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
  /** Default 3,000: a skill of 150 lines fits with room to spare. */
  readonly maxOutputTokens?: number;
}

export const DEFAULT_DRAFT_TIMEOUT_MS = 60_000;
/** A reply longer than this is not a skill; reading stops there. */
const MAX_REPLY_CHARS = 200_000;

class DraftTimeout extends Error {}

/** The reply's text, or a reason it could not be had; never throws, never waits past the time limit. */
async function ask(model: ChatModel, facts: TranscriptFacts, options: ModelDraftOptions): Promise<{ text: string } | { reason: string }> {
  const controller = new AbortController();
  const onAbort = () => controller.abort();
  options.signal?.addEventListener('abort', onAbort);
  const timeoutMs = options.timeoutMs ?? DEFAULT_DRAFT_TIMEOUT_MS;
  let timer: ReturnType<typeof setTimeout> | undefined;
  // A model that ignores the abort signal must not hold the draft hostage: the race ends regardless.
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new DraftTimeout());
    }, timeoutMs);
  });
  const read = (async () => {
    let text = '';
    let cut = false;
    const stream = model.stream({ messages: draftPromptMessages(facts), signal: controller.signal, maxOutputTokens: options.maxOutputTokens ?? 3_000 });
    for await (const event of stream) {
      if (event.type === 'text') text += event.delta;
      else if (event.type === 'done' && event.finishReason === 'length') cut = true;
      if (text.length > MAX_REPLY_CHARS) break;
    }
    return { text, cut };
  })();
  try {
    const { text, cut } = await Promise.race([read, timeout]);
    if (text.trim() === '') return { reason: cut ? 'the model ran out of output tokens before writing anything' : 'the model sent an empty reply' };
    return { text };
  } catch (error) {
    if (error instanceof DraftTimeout) return { reason: `the model did not finish within ${Number((timeoutMs / 1000).toFixed(1))} s` };
    if (options.signal?.aborted) return { reason: 'drafting with the model was stopped' };
    if (error instanceof ModelError) return { reason: `the model failed: ${error.message}${error.advice ? ` (${error.advice})` : ''}` };
    return { reason: `the model failed: ${describeError(error)}` };
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
    // The reader may still be pending on a stalled stream; its eventual rejection is of no interest.
    read.catch(() => undefined);
  }
}

/** The frontmatter's `name` made valid: slugified, or the facts' name when nothing usable is left. */
function repairName(text: string, facts: TranscriptFacts): { text: string; note?: string } {
  const lines = text.split('\n');
  const close = lines.indexOf('---', 1);
  if (lines[0] !== '---' || close < 0) return { text };
  const at = lines.slice(1, close).findIndex((line) => /^name\s*:/.test(line)) + 1;
  const raw = (at > 0 ? lines[at] : undefined)?.replace(/^name\s*:\s*/, '').replace(/^(["'])(.*)\1\s*$/, '$2').trim() ?? '';
  if (at > 0 && isValidSkillName(raw)) return { text };
  const slug = slugifySkillName(raw);
  const name = slug.length >= 3 ? slug : draftName(facts);
  if (at > 0) lines[at] = `name: ${name}`;
  else lines.splice(1, 0, `name: ${name}`);
  return { text: lines.join('\n'), note: at > 0 ? `the model named the skill "${raw.slice(0, 80)}"; renamed to "${name}"` : `the model gave no name; named it "${name}"` };
}

function summary(check: DraftCheck): string {
  const first = check.errors[0];
  return first ? `${first.code} ${first.message}${check.errors.length > 1 ? ` (and ${check.errors.length - 1} more)` : ''}` : 'no errors';
}

/**
 * A draft from the model when one is given and its answer is usable, else the template's. A model
 * answer is usable when it holds a SKILL.md (fenced or bare) that has no lint errors once its name
 * is made valid.
 */
export async function draftSkillWithModel(model: ChatModel | undefined, facts: TranscriptFacts, options: ModelDraftOptions = {}): Promise<DraftResult> {
  const started = Date.now();
  const fallback = async (reason?: string): Promise<DraftResult> => {
    const draft = draftSkill(facts);
    return {
      draft,
      source: 'template',
      ...(reason ? { fallbackReason: reason } : {}),
      notes: [],
      check: await checkDraft(draft.text, options),
      ...(model ? { modelId: model.id } : {}),
      durationMs: Date.now() - started,
    };
  };
  if (!model) return fallback();
  const reply = await ask(model, facts, options);
  if ('reason' in reply) return fallback(reply.reason);
  const candidates = extractSkillMd(reply.text);
  if (candidates.length === 0) return fallback('the model did not reply with a SKILL.md (no frontmatter with a name was found)');
  let firstProblem = '';
  for (const candidate of candidates) {
    const repaired = repairName(candidate, facts);
    const check = await checkDraft(repaired.text, options);
    if (!check.ok) {
      firstProblem ||= summary(check);
      continue;
    }
    const draft: SkillDraftText = { name: check.name as string, description: check.description ?? '', text: repaired.text };
    return { draft, source: 'model', notes: repaired.note ? [repaired.note] : [], check, modelId: model.id, durationMs: Date.now() - started };
  }
  return fallback(`the model's SKILL.md did not pass the lint: ${firstProblem}`);
}
