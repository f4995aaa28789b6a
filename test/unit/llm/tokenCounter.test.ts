import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { estimateTokens } from '../../../src/core/text/tokenEstimate';
import { encodingFor, estimateCounter, MESSAGE_OVERHEAD_TOKENS, REPLY_PRIMING_TOKENS, tokenCounterFor } from '../../../src/core/llm/tokenCounter';

describe('tokenCounterFor', () => {
  it('picks the OpenAI encoding by model family, whatever the id is prefixed with', () => {
    assert.equal(encodingFor('openai:gpt-4o-mini'), 'o200k_base');
    assert.equal(encodingFor('gpt-4.1'), 'o200k_base');
    assert.equal(encodingFor('openrouter/openai/o3-mini'), 'o200k_base');
    assert.equal(encodingFor('gpt-5'), 'o200k_base');
    assert.equal(encodingFor('gpt-4-0613'), 'cl100k_base');
    assert.equal(encodingFor('gpt-3.5-turbo'), 'cl100k_base');
    assert.equal(encodingFor('llama3.1:8b'), undefined);
    assert.equal(encodingFor('qwen2.5-coder'), undefined);
  });

  it('counts OpenAI models exactly with gpt-tokenizer and others with the documented estimate', () => {
    const exact = tokenCounterFor('openai:gpt-4o');
    // "hello world" is two tokens in o200k_base; the estimate would say 3.
    assert.equal(exact.count('hello world'), 2);
    assert.equal(exact.exact, true);
    assert.equal(exact.count('<|endoftext|> typed by a user'), exact.count('<|endoftext|> typed by a user'), 'special tokens are text, not an error');
    const estimate = tokenCounterFor('llama3.1:8b');
    assert.equal(estimate, estimateCounter);
    assert.equal(estimate.exact, false);
    assert.equal(estimate.count('hello world'), estimateTokens('hello world'));
    assert.ok(estimate.count('日本語のテキスト') >= 8, 'non-ASCII characters count as a token each');
  });

  it('adds the per-message overhead, tool calls and the reply priming', () => {
    const counter = estimateCounter;
    const user = { role: 'user' as const, content: 'abcd'.repeat(10) };
    assert.equal(counter.countMessages([user]), REPLY_PRIMING_TOKENS + MESSAGE_OVERHEAD_TOKENS + 10);
    const call = { role: 'assistant' as const, content: '', toolCalls: [{ id: 'c', name: 'read', arguments: '{"path":"abcdefgh"}' }] };
    assert.ok(counter.countMessages([user, call]) > counter.countMessages([user]) + MESSAGE_OVERHEAD_TOKENS);
    assert.equal(counter.countMessages([]), 0);
    const tools = [{ name: 'read_file', description: 'Reads a file.', parameters: { type: 'object', properties: { path: { type: 'string' } } } }];
    assert.ok(counter.countTools(tools) > counter.count('Reads a file.'));
  });

  it('loads no BPE table until the first count', () => {
    // A fresh process: importing the module must not pull in the megabytes of ranks.
    const module = path.join(__dirname, '..', '..', '..', 'src', 'core', 'llm', 'tokenCounter.js');
    const script = `
      const { tokenCounterFor } = require(${JSON.stringify(module)});
      const loaded = () => Object.keys(require.cache).some((file) => file.includes('bpeRanks'));
      const counter = tokenCounterFor('gpt-4o');
      const before = loaded();
      counter.count('hi');
      console.log(JSON.stringify({ before, after: loaded() }));`;
    const out = execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' });
    assert.deepEqual(JSON.parse(out), { before: false, after: true });
  });
});
