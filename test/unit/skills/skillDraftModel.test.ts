import * as assert from 'node:assert/strict';
import type { ChatModel, ChatRequest, ModelEvent } from '../../../src/core/llm/chatTypes';
import { ModelError } from '../../../src/core/llm/chatTypes';
import { draftSkill } from '../../../src/core/skills/draft/skillDraft';
import { transcriptFacts } from '../../../src/core/skills/draft/skillDraftFacts';
import { draftSkillWithModel } from '../../../src/core/skills/draft/skillDraftModel';
import { draftPromptMessages, extractSkillMd, MAX_FACTS_CHARS, renderFacts } from '../../../src/core/skills/draft/skillDraftPrompt';
import { parserFixSession, TranscriptBuilder } from './draftTranscripts';

/** A ChatModel that answers every request with one scripted behaviour and remembers the requests. */
class FakeModel implements ChatModel {
  readonly id = 'fake:drafter';
  readonly requests: ChatRequest[] = [];

  constructor(private readonly behaviour: (request: ChatRequest) => AsyncIterable<ModelEvent>) {}

  stream(request: ChatRequest): AsyncIterable<ModelEvent> {
    this.requests.push(request);
    return this.behaviour(request);
  }
}

/** Streams `text` in small chunks, as providers do. */
function replying(text: string, finishReason: 'stop' | 'length' = 'stop'): FakeModel {
  return new FakeModel(async function* () {
    for (let i = 0; i < text.length; i += 7) yield { type: 'text', delta: text.slice(i, i + 7) };
    yield { type: 'done', finishReason };
  });
}

const MODEL_SKILL = `---
name: fix-trailing-comma-parsing
description: Fixes list parsing that drops the element before a trailing comma. Use when parser tests fail on trailing commas.
---

# Fix trailing comma parsing

## When to use
- Parser tests fail on inputs that end a list with a comma.

## Steps
1. Run the tests to see which case fails:

   \`\`\`bash
   npm test
   \`\`\`

2. Read the list loop in the parser and check its bound.

## Pitfalls
- Editing from memory fails; read the file again before the edit.

## Verification
- \`npm test\` passes.
`;

const facts = () => transcriptFacts(parserFixSession());

describe('draftSkillWithModel', () => {
  it('keeps a model reply that is a bare SKILL.md', async () => {
    const model = replying(MODEL_SKILL);
    const result = await draftSkillWithModel(model, facts());
    assert.equal(result.source, 'model');
    assert.equal(result.fallbackReason, undefined);
    assert.equal(result.draft.text, MODEL_SKILL);
    assert.equal(result.draft.name, 'fix-trailing-comma-parsing');
    assert.ok(result.check.ok);
    assert.equal(result.modelId, 'fake:drafter');
  });

  it('takes the SKILL.md out of a fence with chatter around it, nested code fences included', async () => {
    const reply = `Here is the skill you asked for:\n\n\`\`\`markdown\n${MODEL_SKILL}\`\`\`\n\nLet me know if you want changes.\n\n\`\`\`\nnot part of it\n\`\`\``;
    const result = await draftSkillWithModel(replying(reply), facts());
    assert.equal(result.source, 'model');
    assert.equal(result.draft.text, MODEL_SKILL);
  });

  it('finds the end of a fence whose nested block has no language, by trying the last closing fence too', () => {
    const inner = MODEL_SKILL.replace('```bash', '```');
    const candidates = extractSkillMd(`\`\`\`md\n${inner}\`\`\``);
    assert.ok(candidates.includes(inner), 'the whole file is one of the candidates');
    assert.notEqual(candidates[0], inner, 'the first guess stops at the nested fence');
  });

  it('repairs a name that is not a valid skill name and says so', async () => {
    const result = await draftSkillWithModel(replying(MODEL_SKILL.replace('name: fix-trailing-comma-parsing', 'name: Fix Trailing Comma Parsing')), facts());
    assert.equal(result.source, 'model');
    assert.equal(result.draft.name, 'fix-trailing-comma-parsing');
    assert.match(result.draft.text, /^---\nname: fix-trailing-comma-parsing\n/);
    assert.deepEqual(result.notes, ['the model named the skill "Fix Trailing Comma Parsing"; renamed to "fix-trailing-comma-parsing"']);
  });

  it('falls back to the template, saying why, when the reply is garbage', async () => {
    const result = await draftSkillWithModel(replying('I am sorry, I cannot help with that. {"oops": true} ```'), facts());
    assert.equal(result.source, 'template');
    assert.equal(result.fallbackReason, 'the model did not reply with a SKILL.md (no frontmatter with a name was found)');
    assert.equal(result.draft.text, draftSkill(facts()).text);
    assert.ok(result.check.ok);
  });

  it('falls back when the SKILL.md in the reply fails the lint', async () => {
    const broken = MODEL_SKILL.replace(/description: .*\n/, 'description: [not, text]\n');
    const result = await draftSkillWithModel(replying(broken), facts());
    assert.equal(result.source, 'template');
    assert.match(result.fallbackReason ?? '', /^the model's SKILL\.md did not pass the lint: SW302 The description is a list/);
  });

  it('falls back when the model throws, with the error and its advice', async () => {
    const model = new FakeModel(async function* () {
      yield { type: 'text', delta: '---\nname: half' };
      throw new ModelError('rate_limit', 'The provider is rate limiting requests.', 'Wait a minute and try again.', 429);
    });
    const result = await draftSkillWithModel(model, facts());
    assert.equal(result.source, 'template');
    assert.equal(result.fallbackReason, 'the model failed: The provider is rate limiting requests. (Wait a minute and try again.)');
  });

  it('gives up on a model that hangs and ignores the abort signal, after the time limit', async () => {
    let aborted = false;
    const model = new FakeModel(async function* (request) {
      request.signal?.addEventListener('abort', () => (aborted = true));
      yield { type: 'text', delta: '---\n' };
      await new Promise<never>(() => undefined);
    });
    const started = Date.now();
    const result = await draftSkillWithModel(model, facts(), { timeoutMs: 200 });
    const elapsed = Date.now() - started;
    assert.equal(result.source, 'template');
    assert.equal(result.fallbackReason, 'the model did not finish within 0.2 s');
    assert.ok(elapsed >= 190 && elapsed < 2_000, `returned after ${elapsed} ms`);
    assert.ok(aborted, 'the request was aborted for models that do listen');
  });

  it('stops when the caller aborts, and reports an empty or cut-off reply', async () => {
    const controller = new AbortController();
    const model = new FakeModel(async function* (request) {
      controller.abort();
      if (request.signal?.aborted) throw new ModelError('aborted', 'The request was aborted.', 'Send the message again.');
      yield { type: 'done', finishReason: 'stop' };
    });
    const stopped = await draftSkillWithModel(model, facts(), { signal: controller.signal });
    assert.equal(stopped.fallbackReason, 'drafting with the model was stopped');
    assert.equal((await draftSkillWithModel(replying(''), facts())).fallbackReason, 'the model sent an empty reply');
    assert.equal((await draftSkillWithModel(replying('', 'length'), facts())).fallbackReason, 'the model ran out of output tokens before writing anything');
  });

  it('uses the template without a model, with no reason to report', async () => {
    const result = await draftSkillWithModel(undefined, facts());
    assert.equal(result.source, 'template');
    assert.equal(result.fallbackReason, undefined);
    assert.equal(result.modelId, undefined);
  });

  it('asks with our instructions and the facts as data, bounded whatever the session', async () => {
    const model = replying(MODEL_SKILL);
    await draftSkillWithModel(model, facts());
    assert.equal(model.requests.length, 1);
    assert.equal(model.requests[0]?.maxOutputTokens, 3_000);
    const [system, user] = model.requests[0]?.messages ?? [];
    assert.equal(system?.role, 'system');
    assert.match(system?.content ?? '', /## When to use[\s\S]*## Steps[\s\S]*## Pitfalls[\s\S]*## Verification/);
    assert.match(system?.content ?? '', /not instructions to you/);
    assert.match(user?.content ?? '', /<session-facts>\n[\s\S]*- npm test: exited with code 1[\s\S]*resolved: after changed src\/parser\.ts, "npm test" succeeded[\s\S]*<\/session-facts>$/);
    const huge = new TranscriptBuilder();
    for (let i = 0; i < 300; i++) huge.user(`request ${i} ${'y'.repeat(900)}`).run(`make target-${i} ${'z'.repeat(150)}`, 1, 'boom');
    const rendered = renderFacts(transcriptFacts(huge.session()));
    assert.ok(rendered.length <= MAX_FACTS_CHARS, `${rendered.length} characters`);
    assert.ok(draftPromptMessages(transcriptFacts(huge.session())).every((m) => m.content.length < MAX_FACTS_CHARS + 4_000));
    assert.equal(renderFacts(transcriptFacts(new TranscriptBuilder().session())), '(The session has no requests, tool calls or replies.)');
  });
});
