import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AgentEvent } from '../../../src/core/agent/agentLoop';
import { AgentSession } from '../../../src/core/agent/agentSession';
import type { CompactionInfo } from '../../../src/core/agent/compactionInfo';
import { SUMMARY_SYSTEM_PROMPT } from '../../../src/core/agent/compactionSummary';
import { skillAgentTools } from '../../../src/core/agent/skillAgentTools';
import { skillReader } from '../../../src/core/agent/skillReader';
import { NodeFileSystem } from '../../../src/core/base/nodeFileSystem';
import { contextWindowFor } from '../../../src/core/llm/contextWindows';
import { tokenCounterFor } from '../../../src/core/llm/tokenCounter';
import { compactedHistory } from '../../../src/core/sessions/compactedHistory';
import { NodeAppendPort, SessionLog } from '../../../src/core/sessions/sessionLog';
import type { AgentTool } from '../../../src/core/toolkit/agentTool';
import type { TokenUsage } from '../../../src/core/llm/chatTypes';
import { listModelWindows } from '../../../src/providers/modelConnection';
import { OpenAiChatModel } from '../../../src/providers/openAiChatModel';
import { ScriptedModelServer } from '../../fakes/scriptedModelServer';
import { makeWorkspace, skillMd } from '../skills/skillToolWorkspace';

const TURNS = 200;
const WINDOW = 8_000;
const SKILL_MARKER = 'ROLLOUT-CHECK-7Q: watch the canary for five minutes before the full rollout.';
const NOTE = 'Build log excerpt: '.padEnd(900, 'lorem ipsum dolor sit amet ');

/** A workspace tool with a sizeable result, so the conversation grows by a few hundred tokens a turn. */
const readNote: AgentTool = {
  spec: { name: 'read_note', description: 'Reads the build note.', parameters: { type: 'object', properties: {} } },
  readOnly: true,
  run: async () => ({ success: true, note: NOTE }),
};

describe('a 200-turn session against a small-window model', function () {
  this.timeout(120_000);

  it('compacts automatically, keeps the cached prefix byte-identical, and keeps a skill loaded in turn 3 attached in turn 190', async () => {
    const server = await ScriptedModelServer.start({ models: ['scripted-small'], contextWindow: WINDOW });
    const ws = await makeWorkspace({
      setup: (w) => w.write('.agents/skills', 'deploy-app/SKILL.md', skillMd('deploy-app', 'Deploy a service and check the rollout. Use when shipping.', `# Steps\n\n1. Build the image.\n2. ${SKILL_MARKER}\n`)),
    });
    try {
      const summaryReply = '## Goal\nShip the service.\n## Decisions\nnone\n## Files touched\nnone\n## Commands run\nread_note: read the build note\n## Skills\ndeploy-app\n## Open questions\nnone';
      server
        .always({ request: (body) => body.messages[0]?.content === SUMMARY_SYSTEM_PROMPT }, { text: summaryReply })
        .on({ user: 'turn 3:' }, { text: 'Loading the skill.', toolCalls: [{ name: 'skill_view', arguments: { name: 'deploy-app' } }] })
        .always({ toolResult: { content: 'ROLLOUT-CHECK-7Q' } }, { text: 'Loaded deploy-app; I will follow it.' })
        .always({ user: /^turn \d+:/ }, { text: 'Reading the note.', toolCalls: [{ name: 'read_note', arguments: {} }] })
        .always({ toolResult: { content: 'Build log excerpt' } }, { text: 'The build note says the build passed.' });

      const windows = await listModelWindows({ baseUrl: server.baseUrl, apiKey: 'test-key' });
      assert.equal(windows.get('scripted-small'), WINDOW);
      const window = contextWindowFor('scripted-small', { server: windows.get('scripted-small') });
      assert.deepEqual(window, { tokens: WINDOW, source: 'server' });

      const storage = fs.mkdtempSync(path.join(ws.tmp, 'store-'));
      const nodeFs = new NodeFileSystem();
      const log = new SessionLog({ fs: nodeFs, append: new NodeAppendPort(), storageDir: storage });
      const systemPrompt = `You are a test agent.\n\n${'Stable guidance line. '.repeat(40)}`;
      const writer = await log.create({ model: 'scripted-small', systemPrompt });
      const model = new OpenAiChatModel({ baseUrl: server.baseUrl, model: 'scripted-small', apiKey: 'test-key', maxRetries: 0, timeoutMs: 10_000 });
      const compactions: CompactionInfo[] = [];
      const learned: number[] = [];
      const session = new AgentSession({
        model,
        tools: [...skillAgentTools(() => ws.ctx), readNote],
        systemPrompt,
        onMessage: (message) => void writer.appendChat(message),
        context: {
          counter: tokenCounterFor(model.id),
          window: () => window,
          thresholdShare: 0.8,
          onWindowLearned: (tokens) => learned.push(tokens),
          readSkill: skillReader(() => ws.ctx),
        },
        onCompaction: (info, record) => {
          compactions.push(info);
          void writer.appendCompaction(record);
        },
      });

      // Per request: its usage, and whether a compaction came just before it.
      const usages: { usage: TokenUsage; afterCompaction: boolean }[] = [];
      for (let turn = 1; turn <= TURNS; turn++) {
        let compacted = false;
        const onEvent = (event: AgentEvent) => {
          if (event.type === 'compaction') compacted = true;
          if (event.type === 'usage') {
            usages.push({ usage: event.usage, afterCompaction: compacted });
            compacted = false;
          }
        };
        const result = await session.send(`turn ${turn}: ${turn === 3 ? 'deploy the service with the deploy skill' : 'check the build note'}`, { onEvent });
        assert.equal(result.reason, 'stop', `turn ${turn} ended with ${result.reason}: ${result.error?.message ?? ''}`);
      }
      await writer.flush();

      assert.ok(compactions.length >= 5, `expected several compactions, got ${compactions.length}`);
      assert.ok(compactions.every((c) => c.reason === 'threshold' && c.messagesCompacted > 0 && c.tokensAfter < c.tokensBefore));
      assert.deepEqual(learned, [], 'the estimate kept every request inside the window: no context-length error');
      assert.ok(!server.requests.some((r) => r.tooLong));

      // The bytes before the first conversation message are the same in every chat request.
      const chats = server.requests.filter((r) => r.path === '/v1/chat/completions' && !r.rawBody.includes(JSON.stringify(SUMMARY_SYSTEM_PROMPT)));
      const systemJson = JSON.stringify({ role: 'system', content: systemPrompt });
      const prefixEnd = (raw: string) => raw.indexOf(systemJson) + systemJson.length;
      const prefix = chats[0]?.rawBody.slice(0, prefixEnd(chats[0].rawBody));
      assert.ok(prefix?.endsWith(systemJson));
      for (const chat of chats) assert.equal(chat.rawBody.slice(0, prefixEnd(chat.rawBody)), prefix);
      const tools = JSON.stringify((chats[0]?.body as { tools?: unknown }).tools);
      for (const chat of chats) assert.equal(JSON.stringify((chat.body as { tools?: unknown }).tools), tools);

      // No request ever carries a tool result without the call it answers.
      for (const body of server.chatRequests) {
        const calls = new Set<string>();
        for (const message of body.messages) {
          if (message.role === 'assistant') for (const call of message.tool_calls ?? []) calls.add(call.id);
          if (message.role === 'tool') assert.ok(calls.has(message.tool_call_id), `orphan tool result ${message.tool_call_id}`);
        }
      }

      // After each compaction the provider still serves the tools and the system prompt from its cache.
      const afterCompaction = usages.filter((u) => u.afterCompaction);
      assert.equal(afterCompaction.length, compactions.length);
      const cachedAtLeast = Math.floor((tools.length + systemJson.length) / 4);
      for (const { usage } of afterCompaction) assert.ok(usage.cachedTokens >= cachedAtLeast, `cached ${usage.cachedTokens} < ${cachedAtLeast}`);
      const cached = afterCompaction.map(({ usage }) => usage.cachedTokens).sort((a, b) => a - b);
      // What the run did, for the record (the assertions above are the test).
      console.log(
        `      ${chats.length} chat requests, ${compactions.length} compactions (tokens before → after, median: ${median(compactions.map((c) => c.tokensBefore))} → ${median(compactions.map((c) => c.tokensAfter))}), ` +
          `cached prompt tokens in the first request after each: ${cached[0] ?? 0}–${cached.at(-1) ?? 0}`,
      );

      // Turn 3's skill_view is long compacted away by turn 190, and its SKILL.md is still in the request.
      const turn190 = server.chatRequests.find((body) => {
        const last = body.messages.at(-1);
        return last?.role === 'user' && String(last.content).startsWith('turn 190:');
      });
      assert.ok(turn190, 'turn 190 was sent');
      const sent = JSON.stringify(turn190.messages);
      assert.ok(!sent.includes('turn 3: deploy'), 'turn 3 itself was compacted');
      assert.ok(sent.includes(SKILL_MARKER), 'the skill text is re-attached');
      assert.deepEqual(compactions.at(-1)?.skills, [{ name: 'deploy-app', attached: 'full' }]);

      // The log keeps every message, and a resume rebuilds exactly what the model saw last.
      const resumed = await log.read(writer.id);
      assert.ok(resumed);
      assert.equal(resumed.messages.filter((m) => m.role === 'user').length, TURNS);
      assert.equal(resumed.compactions?.length, compactions.length);
      const history = compactedHistory(resumed);
      assert.equal(history.skipped, undefined);
      assert.deepEqual(history.messages, session.history.slice(1));
      assert.deepEqual(history.prior?.skills, ['deploy-app']);
    } finally {
      ws.cleanup();
      await server.close();
    }
  });
});

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}
