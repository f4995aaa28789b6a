import * as assert from 'node:assert/strict';
import type { AgentEvent } from '../../../src/core/agent/agentLoop';
import { runAgentTurn } from '../../../src/core/agent/agentLoop';
import type { AgentTool, ApprovalAnswer, ApprovalGate } from '../../../src/core/toolkit/agentTool';
import type { ChatMessage } from '../../../src/core/llm/chatTypes';
import { OpenAiChatModel } from '../../../src/providers/openAiChatModel';
import { faults, ScriptedModelServer } from '../../fakes/scriptedModelServer';

const SYSTEM: ChatMessage = { role: 'system', content: 'You are a test agent.' };

function tool(name: string, run: AgentTool['run'], options: { readOnly?: boolean; timeoutMs?: number } = {}): AgentTool {
  return {
    spec: { name, description: `${name} tool`, parameters: { type: 'object', properties: {} } },
    readOnly: options.readOnly ?? true,
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    run,
  };
}

/** Counts how many tool runs overlap, to see parallel and sequential execution without timing. */
function concurrency() {
  let active = 0;
  let max = 0;
  return {
    get max() {
      return max;
    },
    wrap: (name: string, readOnly: boolean) =>
      tool(
        name,
        async () => {
          active += 1;
          max = Math.max(max, active);
          await new Promise((resolve) => setTimeout(resolve, 30));
          active -= 1;
          return { success: true, tool: name };
        },
        { readOnly },
      ),
  };
}

describe('agent loop against the scripted model server', () => {
  let server: ScriptedModelServer;
  let model: OpenAiChatModel;

  beforeEach(async () => {
    server = await ScriptedModelServer.start();
    model = new OpenAiChatModel({ baseUrl: server.baseUrl, model: 'scripted', apiKey: 'test-key', maxRetries: 0, timeoutMs: 5_000 });
  });

  afterEach(async () => {
    await server.close();
  });

  it('runs a multi-tool turn and keeps the system prompt byte-identical on every request', async () => {
    server.on(
      { user: 'how many files' },
      { text: 'Let me look.', toolCalls: [{ id: 'a', name: 'list_files', arguments: { path: '.' } }, { id: 'b', name: 'read_file', arguments: { path: 'README.md' } }] },
    );
    server.on({ toolResult: { toolCallId: 'b' } }, { text: 'There are 3 files.' });
    const events: AgentEvent[] = [];
    const result = await runAgentTurn({
      model,
      messages: [SYSTEM, { role: 'user', content: 'how many files?' }],
      tools: [tool('list_files', async () => ({ success: true, files: ['a', 'b', 'c'] })), tool('read_file', async () => ({ success: true, text: '# hi' }))],
      maxSteps: 5,
      onEvent: (event) => events.push(event),
    });
    assert.equal(result.reason, 'stop');
    assert.equal(result.toolCalls, 2);
    assert.deepEqual(result.added.map((m) => m.role), ['assistant', 'tool', 'tool', 'assistant']);
    assert.deepEqual(result.added.at(-1), { role: 'assistant', content: 'There are 3 files.' });
    const second = server.chatRequests[1];
    assert.ok(second);
    const toolMessages = second.messages.filter((m) => m.role === 'tool');
    assert.deepEqual(toolMessages.map((m) => (m as { tool_call_id: string }).tool_call_id), ['a', 'b']);
    assert.match(String(toolMessages[0]?.content), /"files":\["a","b","c"\]/);
    assert.deepEqual(server.chatRequests.map((r) => JSON.stringify(r.messages[0])), [JSON.stringify(second.messages[0]), JSON.stringify(second.messages[0])]);
    const types = events.map((e) => e.type);
    assert.ok(types.indexOf('tool_start') < types.indexOf('tool_end'));
    assert.equal(types.at(-1), 'turn_done');
    assert.ok(events.some((e) => e.type === 'usage'));
  });

  it('runs read-only calls in parallel and a writing call alone', async () => {
    const reads = concurrency();
    server.on({ user: 'parallel' }, { toolCalls: [1, 2, 3].map((i) => ({ id: `r${i}`, name: `read${i}`, arguments: {} })) });
    server.on({ toolResult: { toolCallId: 'r3' } }, { text: 'done' });
    await runAgentTurn({
      model,
      messages: [SYSTEM, { role: 'user', content: 'parallel' }],
      tools: [1, 2, 3].map((i) => reads.wrap(`read${i}`, true)),
      maxSteps: 3,
    });
    assert.equal(reads.max, 3);

    const mixed = concurrency();
    server.on({ user: 'mixed' }, { toolCalls: [{ id: 'm1', name: 'read1', arguments: {} }, { id: 'm2', name: 'write', arguments: {} }, { id: 'm3', name: 'read2', arguments: {} }] });
    server.on({ toolResult: { toolCallId: 'm3' } }, { text: 'done' });
    await runAgentTurn({
      model,
      messages: [SYSTEM, { role: 'user', content: 'mixed' }],
      tools: [mixed.wrap('read1', true), mixed.wrap('write', false), mixed.wrap('read2', true)],
      maxSteps: 3,
    });
    assert.equal(mixed.max, 1);
  });

  it('turns malformed arguments, unknown tools, throws and timeouts into tool results, and goes on', async () => {
    server.on(
      { user: 'break things' },
      {
        toolCalls: [
          { id: 'bad', name: 'ok_tool', arguments: '{"path": ' },
          { id: 'unknown', name: 'no_such_tool', arguments: {} },
          { id: 'throws', name: 'throwing', arguments: {} },
          { id: 'slow', name: 'slow', arguments: {} },
        ],
      },
    );
    server.on({ toolResult: { toolCallId: 'slow' } }, { text: 'Recovered.' });
    const result = await runAgentTurn({
      model,
      messages: [SYSTEM, { role: 'user', content: 'break things' }],
      tools: [
        tool('ok_tool', async () => ({ success: true })),
        tool('throwing', async () => {
          throw new Error('disk on fire');
        }),
        tool('slow', () => new Promise(() => undefined), { timeoutMs: 50 }),
      ],
      maxSteps: 3,
    });
    assert.equal(result.reason, 'stop');
    const results = new Map(
      result.added.filter((m): m is Extract<ChatMessage, { role: 'tool' }> => m.role === 'tool').map((m) => [m.toolCallId, JSON.parse(m.content) as { error: string }]),
    );
    assert.match(results.get('bad')?.error ?? '', /not valid JSON/);
    assert.match(results.get('unknown')?.error ?? '', /unknown tool "no_such_tool"; the tools are: ok_tool, throwing, slow/);
    assert.match(results.get('throws')?.error ?? '', /throwing failed: disk on fire/);
    assert.match(results.get('slow')?.error ?? '', /timed out/);
    assert.equal(result.added.at(-1)?.content, 'Recovered.');
  });

  it('asks before a writing tool and respects the answer', async () => {
    const asked: string[] = [];
    let answer: ApprovalAnswer = 'deny';
    const gate: ApprovalGate = {
      check: (name) => (name === 'write_file' ? { decision: 'ask' } : { decision: 'deny', reason: 'commands are off' }),
      ask: async (request) => {
        asked.push(request.summary);
        return answer;
      },
      record: () => undefined,
    };
    let writes = 0;
    const tools = [
      tool('write_file', async () => ({ success: true, wrote: ++writes }), { readOnly: false }),
      tool('run_command', async () => ({ success: true }), { readOnly: false }),
    ];
    server.on({ user: 'write it' }, { toolCalls: [{ id: 'w1', name: 'write_file', arguments: { path: 'a.txt' } }, { id: 'c1', name: 'run_command', arguments: { command: 'ls' } }] });
    server.on({ toolResult: { toolCallId: 'c1' } }, { text: 'ok' });
    const denied = await runAgentTurn({ model, messages: [SYSTEM, { role: 'user', content: 'write it' }], tools, maxSteps: 2, approvals: gate });
    assert.equal(writes, 0);
    assert.deepEqual(asked, ['write_file: a.txt']);
    const deniedResults = denied.added.filter((m) => m.role === 'tool').map((m) => m.content);
    assert.match(deniedResults[0] ?? '', /the user declined/);
    assert.match(deniedResults[1] ?? '', /not allowed: commands are off/);

    answer = 'allow_once';
    server.on({ user: 'write again' }, { toolCalls: [{ id: 'w2', name: 'write_file', arguments: { path: 'a.txt' } }] });
    server.on({ toolResult: { toolCallId: 'w2' } }, { text: 'written' });
    await runAgentTurn({ model, messages: [SYSTEM, { role: 'user', content: 'write again' }], tools, maxSteps: 2, approvals: gate });
    assert.equal(writes, 1);
  });

  it('stops at the step limit', async () => {
    server.always({ request: () => true }, { toolCalls: [{ name: 'again', arguments: {} }] });
    const result = await runAgentTurn({
      model,
      messages: [SYSTEM, { role: 'user', content: 'loop forever' }],
      tools: [tool('again', async () => ({ success: true }))],
      maxSteps: 3,
    });
    assert.equal(result.reason, 'max_steps');
    assert.equal(server.chatRequests.length, 3);
  });

  it('keeps the partial reply when the user stops mid-stream', async () => {
    server.on({ user: 'long answer' }, { text: 'First part of a long answer that keeps going and going.', chunkSize: 5, chunkDelayMs: 40 });
    const controller = new AbortController();
    let received = '';
    const result = await runAgentTurn({
      model,
      messages: [SYSTEM, { role: 'user', content: 'long answer' }],
      tools: [],
      maxSteps: 2,
      signal: controller.signal,
      onEvent: (event) => {
        if (event.type === 'text') {
          received += event.delta;
          if (received.length >= 10) controller.abort();
        }
      },
    });
    assert.equal(result.reason, 'aborted');
    const kept = result.added.at(-1);
    assert.equal(kept?.role, 'assistant');
    assert.ok(kept && kept.content.length >= 10 && 'First part of a long answer'.startsWith(kept.content.slice(0, 10)));
  });

  it('reports a model failure with advice and keeps what was said', async () => {
    server.on({ user: 'cut me' }, faults.cutStream(3, { text: 'Partial words before the cut, and more text after it.', chunkSize: 4 }));
    const result = await runAgentTurn({ model, messages: [SYSTEM, { role: 'user', content: 'cut me' }], tools: [], maxSteps: 2 });
    assert.equal(result.reason, 'error');
    assert.equal(result.error?.kind, 'connection');
    assert.ok(result.error && result.error.advice.length > 0);
    assert.equal(result.added[0]?.role, 'assistant');
    assert.ok((result.added[0]?.content ?? '').length > 0);

    server.on({ user: 'fail' }, faults.unauthorized());
    const auth = await runAgentTurn({ model, messages: [SYSTEM, { role: 'user', content: 'fail' }], tools: [], maxSteps: 2 });
    assert.equal(auth.error?.kind, 'auth');
    assert.deepEqual(auth.added, []);
  });
});
