import * as assert from 'node:assert/strict';
import { contextWindowFor, DEFAULT_CONTEXT_WINDOW, isContextLengthMessage, tableWindow, windowFromContextError } from '../../../src/core/llm/contextWindows';

describe('context windows', () => {
  it('takes the setting, then the learned window, then the server, then the table, then the default', () => {
    assert.deepEqual(contextWindowFor('gpt-4o', { setting: 50_000, learned: 20_000, server: 30_000 }), { tokens: 50_000, source: 'setting' });
    assert.deepEqual(contextWindowFor('gpt-4o', { learned: 20_000, server: 30_000 }), { tokens: 20_000, source: 'learned' });
    assert.deepEqual(contextWindowFor('gpt-4o', { server: 30_000 }), { tokens: 30_000, source: 'server' });
    assert.deepEqual(contextWindowFor('openai:gpt-4o', {}), { tokens: 128_000, source: 'table' });
    assert.deepEqual(contextWindowFor('my-finetune', {}), { tokens: DEFAULT_CONTEXT_WINDOW, source: 'default' });
    // 0 (the setting's "not set") and nonsense are not windows.
    assert.equal(contextWindowFor('my-finetune', { setting: 0, server: Number.NaN, learned: 12 }).source, 'default');
  });

  it('knows the windows of common models, specific names before their families', () => {
    assert.equal(tableWindow('gpt-4.1-mini'), 1_047_576);
    assert.equal(tableWindow('gpt-4-32k'), 32_768);
    assert.equal(tableWindow('gpt-4'), 8_192);
    assert.equal(tableWindow('o1-mini'), 128_000);
    assert.equal(tableWindow('o3'), 200_000);
    assert.equal(tableWindow('ollama:llama3.1:8b'), 131_072);
    assert.equal(tableWindow('llama3'), 8_192);
    assert.equal(tableWindow('claude-sonnet-4'), 200_000);
    assert.equal(tableWindow('something-else'), undefined);
  });

  it('reads the window from the context-length errors of common servers', () => {
    const cases: readonly [string, number][] = [
      ["This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.", 8192],
      ["This model's maximum context length is 4,096 tokens. However, you requested 5000 tokens", 4096],
      ['The prompt (total length 5000) is too long to fit into the model (context length 4096).', 4096],
      ['request (5000 tokens) exceeds the available context size (4096 tokens), try increasing it', 4096],
      ['Trying to keep the first 5000 tokens when context the overflows. However, the model is loaded with context length of only 4096 tokens', 4096],
      ['Prompt contains 40000 tokens, too large for model with 32768 maximum context length', 32768],
      ['prompt is too long: 210000 tokens > 200000 maximum', 200000],
      ['The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).', 1048576],
      ['Input validation error: `inputs` tokens + `max_new_tokens` must be <= 4096. Given: 5000', 4096],
    ];
    for (const [message, window] of cases) {
      assert.equal(windowFromContextError(message), window, message);
      assert.ok(isContextLengthMessage(message), `recognised: ${message}`);
    }
    assert.equal(windowFromContextError('prompt is too long'), undefined);
    assert.equal(windowFromContextError('maximum context length is 12 tokens'), undefined, 'too small to be a window');
  });

  it('tells a context-length error from other refusals', () => {
    assert.ok(isContextLengthMessage('anything', 'context_length_exceeded'));
    assert.ok(isContextLengthMessage('', 'exceed_context_size_error'));
    assert.ok(isContextLengthMessage('input length exceeds maximum context length'));
    assert.ok(!isContextLengthMessage('Rate limit reached for tokens per min'));
    assert.ok(!isContextLengthMessage('this model does not support tools'));
    assert.ok(!isContextLengthMessage('Invalid value for temperature'));
  });
});
