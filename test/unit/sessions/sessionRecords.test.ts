import * as assert from 'node:assert/strict';
import type { TokenUsage } from '../../../src/core/llm/chatTypes';
import type { SessionRecord } from '../../../src/core/sessions/sessionRecords';
import { parseRecordLine, parseSessionLines, serializeRecord } from '../../../src/core/sessions/sessionRecords';

const AT = '2025-05-01T09:00:00.000Z';

describe('session records', () => {
  it('reads back every record the writer writes, with every field it can carry', () => {
    const records: SessionRecord[] = [
      {
        type: 'session',
        v: 1,
        id: 's1',
        created: AT,
        model: 'openai:gpt-4.1-mini',
        systemPrompt: 'You are Skillwright.\n\u2028 kept byte for byte  ',
        promptLayers: { stable: 'a', context: 'b', volatile: 'c' },
        workspace: '/projects/app',
        title: 'Set by the caller',
      },
      { type: 'message', id: 'm1', role: 'user', content: 'Why? 🙂\n{"type":"title"}', at: AT },
      {
        type: 'message',
        id: 'm2',
        role: 'assistant',
        content: 'Reading.',
        toolCalls: [{ id: 'call_1', name: 'read_file', arguments: '{"path":"a.ts"}' }],
        status: 'stopped',
        durationMs: 850,
        started: AT,
        at: AT,
      },
      { type: 'message', id: 'm3', role: 'tool', content: 'denied', toolCallId: 'call_1', toolName: 'read_file', isError: true, at: AT },
      { type: 'usage', at: AT, usage: { promptTokens: 1200, completionTokens: 80, cachedTokens: 1024 }, model: 'gpt-4.1-mini', messageId: 'm2' },
      { type: 'title', at: AT, title: 'Login timeout', source: 'model' },
    ];
    for (const record of records) {
      const line = serializeRecord(record);
      assert.equal(line.indexOf('\n'), line.length - 1, 'one line per record');
      assert.deepEqual(parseRecordLine(line.slice(0, -1)), { record });
    }
  });

  it('skips what is not a record with a reason that names the field, never the text of the line', () => {
    const secret = 'SECRET-in-a-prompt';
    const cases: readonly [string, RegExp][] = [
      [`{"type":"message","id":"m1","role":"user","content":"${secret}`, /^not JSON/],
      [`["${secret}"]`, /^not a record \(JSON an array\)$/],
      ['42', /^not a record \(JSON number\)$/],
      [`{"type":"checkpoint","summary":"${secret}"}`, /^a "checkpoint" record, which this version does not read$/],
      [`{"type":"compaction","id":"c1","at":"${AT}","summary":"${secret}","kept":2}`, /^compaction record: "messages" is missing$/],
      [`{"content":"${secret}"}`, /^a record without a "type"$/],
      [`{"type":"message","id":"m1","role":"user","at":"${AT}"}`, /^message record: "content" is missing$/],
      [`{"type":"message","id":"m1","role":"robot","content":"${secret}","at":"${AT}"}`, /^message record: "role" should be one of system, user, assistant, tool$/],
      [`{"type":"message","id":"m1","role":"assistant","content":"x","toolCalls":[{"id":1,"name":"read_file","arguments":"{}"}],"at":"${AT}"}`, /^message record: "toolCalls\.0\.id" should be string, not number$/],
      [`{"type":"session","id":"s","created":"${AT}","model":"m"}`, /^session record: "systemPrompt" is missing$/],
      [`{"type":"usage","at":"${AT}","usage":null}`, /^usage record: "usage" should be object, not null$/],
      [`{"type":"title","at":"${AT}","title":7,"source":"user"}`, /^title record: "title" should be string, not number$/],
    ];
    for (const [line, reason] of cases) {
      const parsed = parseRecordLine(line);
      assert.ok(parsed.reason !== undefined, line);
      assert.equal(parsed.record, undefined, line);
      assert.match(parsed.reason, reason, line);
      assert.ok(!parsed.reason.includes(secret), parsed.reason);
    }
  });

  it('keeps a record whose optional fields it does not understand, and leaves those fields out', () => {
    const message = parseRecordLine(
      `{"type":"message","id":"m1","role":"assistant","content":"the text a user would lose","status":"compacted","isError":"yes","durationMs":"5","toolName":3,"future":{"x":1},"at":"${AT}"}`,
    );
    assert.deepEqual(message, { record: { type: 'message', id: 'm1', role: 'assistant', content: 'the text a user would lose', at: AT } });

    const usage = parseRecordLine(`{"type":"usage","at":"${AT}","usage":{"promptTokens":"12","completionTokens":3}}`);
    // Sums of token counts stay numbers: what is missing or odd counts as 0.
    const counted: TokenUsage | undefined = usage.record?.type === 'usage' ? usage.record.usage : undefined;
    assert.deepEqual(counted, { promptTokens: 0, completionTokens: 3, cachedTokens: 0 });

    const header = parseRecordLine(`{"type":"session","v":2,"id":"s","created":"${AT}","model":"m","systemPrompt":"p","promptLayers":"flat"}`);
    assert.deepEqual(header, { record: { type: 'session', v: 2, id: 's', created: AT, model: 'm', systemPrompt: 'p' } });

    const title = parseRecordLine(`{"type":"title","at":"${AT}","title":"Kept","source":"auto"}`);
    assert.deepEqual(title, { record: { type: 'title', at: AT, title: 'Kept' } });
  });

  it('numbers skipped lines and marks only a last line without its newline as unfinished', () => {
    const lines = [
      `{"type":"message","id":"m1","role":"user","content":"one","at":"${AT}"}`,
      '{"type":"message","id":"m2","rol',
      '',
      `{"type":"message","id":"m3","role":"user","content":"three","at":"${AT}"}`,
      '{"type":"message","id":"m4","role":"user","content":"fo',
    ];
    const parsed = parseSessionLines(lines.join('\n'));
    assert.deepEqual(
      parsed.records.map((record) => (record.type === 'message' ? record.content : record.type)),
      ['one', 'three'],
    );
    assert.deepEqual(
      parsed.skipped.map(({ line, unfinished }) => ({ line, unfinished: unfinished === true })),
      [
        { line: 2, unfinished: false },
        { line: 5, unfinished: true },
      ],
    );
    assert.match(parsed.skipped[1]?.reason ?? '', /^unfinished last line .*: not JSON/);
    // The same text with its final newline: nothing is unfinished, the damage is still damage.
    assert.deepEqual(
      parseSessionLines(`${lines.join('\n')}\n`).skipped.map((skip) => skip.unfinished === true),
      [false, false],
    );
  });
});
