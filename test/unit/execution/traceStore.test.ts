import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { NodeFileSystem } from '../../../src/core/base/nodeFileSystem';
import { nullLogger } from '../../../src/core/base/logger';
import type { RunTrace } from '../../../src/core/execution/executionTypes';
import { nodeTraceAppend } from '../../../src/core/execution/executorSetup';
import { parseTraceLine, TraceStore } from '../../../src/core/execution/traceStore';

function trace(id: string, skill: string, started: string, extra: Partial<RunTrace> = {}): RunTrace {
  return { type: 'trace', trace_id: id, skill, kind: 'script', success: true, started, durationMs: 5, outputBytes: 2, steps: [], calledSkills: [], origin: 'test', ...extra };
}

describe('TraceStore', () => {
  let dir: string;
  let store: TraceStore;
  const warnings: string[] = [];
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sw-traces-'));
    warnings.length = 0;
    const logger = { ...nullLogger, warn: (m: string) => void warnings.push(m) };
    store = new TraceStore({ fs: new NodeFileSystem(), append: nodeTraceAppend, storageDir: dir, logger });
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('keeps chat runs beside their session and others by day, and finds them by skill, session and time', async () => {
    await store.append(trace('a', 'deploy', '2026-11-30T10:00:00.000Z', { sessionId: 'sess-1', calledSkills: ['build'] }));
    await store.append(trace('b', 'build', '2026-12-01T09:00:00.000Z'));
    await store.append(trace('c', 'deploy', '2026-12-01T11:00:00.000Z'));
    assert.ok(fs.existsSync(path.join(dir, 'sessions', 'sess-1.traces.jsonl')));
    assert.ok(fs.existsSync(path.join(dir, 'traces', '2026-12-01.jsonl')));
    assert.deepEqual((await store.list()).map((t) => t.trace_id), ['c', 'b', 'a'], 'newest first');
    assert.deepEqual((await store.list({ skill: 'build' })).map((t) => t.trace_id), ['b', 'a'], 'a run that called the skill counts');
    assert.deepEqual((await store.list({ sessionId: 'sess-1' })).map((t) => t.trace_id), ['a']);
    assert.deepEqual((await store.list({ since: Date.parse('2026-12-01T00:00:00Z') })).map((t) => t.trace_id), ['c', 'b']);
    assert.equal((await store.get('b'))?.skill, 'build');
    assert.equal(await store.get('nope'), undefined);
  });

  it('skips torn and foreign lines with one warning per file, and never uses an unsafe session id as a file name', async () => {
    await store.append(trace('ok', 'x', '2026-12-01T09:00:00.000Z', { sessionId: '../../etc' }));
    const file = path.join(dir, 'traces', '2026-12-01.jsonl');
    fs.appendFileSync(file, '{"type":"trace","trace_id":"torn"\nnot json\n{"type":"message"}\n');
    const listed = await store.list();
    assert.deepEqual(listed.map((t) => t.trace_id), ['ok']);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0] ?? '', /Skipped 3 unreadable/);
    assert.equal(fs.existsSync(path.join(dir, 'sessions')), false);
  });

  it('keeps the order of appends made at once', async () => {
    await Promise.all(Array.from({ length: 50 }, (_, i) => store.append(trace(`t${i}`, 'x', `2026-12-01T09:00:${String(i).padStart(2, '0')}.000Z`))));
    const lines = fs.readFileSync(path.join(dir, 'traces', '2026-12-01.jsonl'), 'utf8').trim().split('\n');
    assert.deepEqual(lines.map((line) => parseTraceLine(line)?.trace_id), Array.from({ length: 50 }, (_, i) => `t${i}`));
  });

  it('parseTraceLine rejects what is not a trace', () => {
    assert.equal(parseTraceLine('[]'), undefined);
    assert.equal(parseTraceLine(JSON.stringify({ ...trace('x', 'y', 'not a date') })), undefined);
    assert.equal(parseTraceLine(JSON.stringify({ ...trace('x', 'y', '2026-01-01T00:00:00Z'), steps: 'no' })), undefined);
  });
});
