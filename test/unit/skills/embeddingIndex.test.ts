import * as assert from 'node:assert/strict';
import type { Logger } from '../../../src/core/base/logger';
import type { SkillRecord } from '../../../src/core/skills/model/skillTypes';
import { decodeEmbeddingCache, encodeEmbeddingCache } from '../../../src/core/skills/search/embeddingCache';
import type { EmbeddingStore } from '../../../src/core/skills/search/embeddingIndex';
import { EmbeddingIndex } from '../../../src/core/skills/search/embeddingIndex';
import { MAX_QUERY_CHARS, contentHash, embeddingText } from '../../../src/core/skills/search/embeddingText';
import { OpenAiEmbeddingClient } from '../../../src/providers/embeddingClient';
import { ScriptedModelServer } from '../../fakes/scriptedModelServer';
import { EmbeddingFaultServer, vectorsAnswer, wordVector } from './embeddingFaultServer';
import { skillRecord } from './skillRecordFixture';

export class MemoryStore implements EmbeddingStore {
  writes = 0;
  constructor(public bytes?: Uint8Array) {}
  async read(): Promise<Uint8Array | undefined> {
    return this.bytes;
  }
  async write(bytes: Uint8Array): Promise<void> {
    this.bytes = bytes;
    this.writes++;
  }
}

export function memoryLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const add = (level: string) => (message: string | Error) => void lines.push(`${level} ${String(message)}`);
  return { lines, trace: () => undefined, debug: add('debug'), info: add('info'), warn: add('warn'), error: add('error') };
}

function skills(count: number): SkillRecord[] {
  return Array.from({ length: count }, (_, i) =>
    skillRecord(`skill-${i}`, `Does task number ${i} with tool ${i % 7}`, { useCases: [`case ${i}`], exampleQueries: [`please do ${i}`], headings: ['Steps'] }),
  );
}

function embeddingRequests(server: ScriptedModelServer): string[][] {
  return server.requests.filter((r) => r.path === '/v1/embeddings').map((r) => (r.body as { input: string[] }).input);
}

describe('EmbeddingIndex', () => {
  let server: ScriptedModelServer;
  let client: OpenAiEmbeddingClient;

  beforeEach(async () => {
    server = await ScriptedModelServer.start({ embeddingDimensions: 32 });
    client = new OpenAiEmbeddingClient({ baseUrl: server.baseUrl, model: 'scripted-embedding', maxRetries: 0 });
  });

  afterEach(async () => {
    await server.close();
  });

  it('embeds every skill in batches, one text per skill, and becomes ready', async () => {
    const index = new EmbeddingIndex({ embedder: client, model: 'scripted-embedding', store: new MemoryStore(), batchSize: 64 });
    const records = skills(150);
    assert.equal(index.status.state, 'indexing');
    index.update(records);
    await index.idle();
    const batches = embeddingRequests(server);
    assert.deepEqual(
      batches.map((batch) => batch.length),
      [64, 64, 22],
    );
    assert.deepEqual(batches.flat(), records.map(embeddingText));
    assert.match(batches[0]?.[0] ?? '', /^skill-0\nDoes task number 0 with tool 0\nUse cases: case 0\nExample requests: please do 0\nSections: Steps$/);
    assert.deepEqual(index.status, { state: 'ready', model: 'scripted-embedding', skills: 150, embedded: 150 });
    const body = server.requests.find((r) => r.path === '/v1/embeddings')?.body as Record<string, unknown>;
    assert.equal(body['model'], 'scripted-embedding');
    assert.equal(body['encoding_format'], 'float');
    index.dispose();
  });

  it('answers from the cache on the next start without embedding any skill again', async () => {
    const store = new MemoryStore();
    const first = new EmbeddingIndex({ embedder: client, model: 'scripted-embedding', store });
    first.update(skills(20));
    await first.idle();
    assert.equal(store.writes, 1);
    first.dispose();
    server.reset();

    const second = new EmbeddingIndex({ embedder: client, model: 'scripted-embedding', store });
    second.update(skills(20));
    await second.idle();
    assert.equal(embeddingRequests(server).length, 0);
    assert.equal(second.status.state, 'ready');
    assert.equal(store.writes, 1, 'nothing changed, so nothing is written');
    const hits = await second.nearest('skill-3 does task number 3');
    assert.equal(hits?.[0]?.record.name, 'skill-3');
    assert.deepEqual(embeddingRequests(server), [['skill-3 does task number 3']]);
    second.dispose();
  });

  it('embeds only the skills whose text changed, and drops removed ones from the cache', async () => {
    const store = new MemoryStore();
    const index = new EmbeddingIndex({ embedder: client, model: 'scripted-embedding', store });
    const records = skills(10);
    index.update(records);
    await index.idle();
    server.reset();
    const changed = { ...records[4], description: 'Now resizes photos' } as SkillRecord;
    const added = skillRecord('brand-new', 'A new skill');
    // A new record object with the same content (the index re-reads a file) needs no request.
    const reread = { ...records[5] } as SkillRecord;
    index.update([...records.slice(0, 4), changed, reread, ...records.slice(6, 9), added]);
    await index.idle();
    assert.deepEqual(embeddingRequests(server), [[embeddingText(changed), embeddingText(added)]]);
    const decoded = decodeEmbeddingCache(store.bytes as Uint8Array);
    assert.ok(decoded.ok);
    assert.equal(decoded.content.vectors.size, 10);
    assert.ok(!decoded.content.vectors.has(contentHash(embeddingText(records[9] as SkillRecord))), 'the removed skill is gone');
    assert.ok(!decoded.content.vectors.has(contentHash(embeddingText(records[4] as SkillRecord))), 'the old text of the changed one is gone');
    const hits = await index.nearest(embeddingText(changed));
    assert.equal(hits?.[0]?.record.name, 'skill-4');
    assert.ok(!hits?.some((hit) => hit.record.name === 'skill-9'));
    index.dispose();
  });

  it('rebuilds a corrupt cache file with a log line', async () => {
    const logger = memoryLogger();
    const store = new MemoryStore(new TextEncoder().encode('garbage, not a cache'));
    const index = new EmbeddingIndex({ embedder: client, model: 'scripted-embedding', store, logger });
    index.update(skills(5));
    await index.idle();
    assert.ok(logger.lines.some((line) => /^warn The embeddings cache is unusable: it is not a Skillwright embeddings cache.*rebuilt/.test(line)), logger.lines.join('\n'));
    assert.equal(embeddingRequests(server).flat().length, 5);
    const decoded = decodeEmbeddingCache(store.bytes as Uint8Array);
    assert.ok(decoded.ok && decoded.content.vectors.size === 5);
    index.dispose();
  });

  it('rebuilds a cache made with another model, or with another dimension count', async () => {
    const logger = memoryLogger();
    const records = skills(3);
    const foreign = encodeEmbeddingCache({ model: 'other-model', dimensions: 32, vectors: new Map(records.map((r) => [contentHash(embeddingText(r)), new Float32Array(32).fill(1)])) });
    const index = new EmbeddingIndex({ embedder: client, model: 'scripted-embedding', store: new MemoryStore(foreign), logger });
    index.update(records);
    await index.idle();
    assert.ok(logger.lines.some((line) => line.includes('The embeddings cache was made with other-model; embedding the skills with scripted-embedding.')));
    assert.equal(embeddingRequests(server).flat().length, 3);
    index.dispose();

    server.reset();
    const smaller = encodeEmbeddingCache({ model: 'scripted-embedding', dimensions: 8, vectors: new Map(records.map((r) => [contentHash(embeddingText(r)), new Float32Array(8).fill(1)])) });
    const again = new EmbeddingIndex({ embedder: client, model: 'scripted-embedding', store: new MemoryStore(smaller), logger });
    again.update(records);
    await again.idle();
    assert.equal((await again.nearest('anything')) , undefined, 'the first live answer shows the cache is stale: this query ranks by words');
    await again.idle();
    assert.ok(logger.lines.some((line) => line.includes('holds 8-dimension vectors, but scripted-embedding now gives 32')));
    assert.equal(again.status.state, 'ready');
    assert.equal((await again.nearest('skill-1 does task number 1'))?.[0]?.record.name, 'skill-1');
    again.dispose();
  });

  it('sends at most MAX_QUERY_CHARS of a 100,000-character message', async () => {
    const index = new EmbeddingIndex({ embedder: client, model: 'scripted-embedding' });
    index.update(skills(3));
    await index.idle();
    server.reset();
    const message = 'skill-2 '.repeat(12_500);
    assert.equal(message.length, 100_000);
    const hits = await index.nearest(message);
    assert.equal(hits?.[0]?.record.name, 'skill-2');
    const [sent] = embeddingRequests(server);
    assert.ok(sent && sent.length === 1 && (sent[0] as string).length <= MAX_QUERY_CHARS && (sent[0] as string).length > MAX_QUERY_CHARS * 0.8);
    assert.deepEqual(await index.nearest('   \n '), [], 'an empty message needs no request');
    assert.equal(embeddingRequests(server).length, 1);
    index.dispose();
  });

  it('answers undefined until the skills are embedded', async () => {
    const index = new EmbeddingIndex({ embedder: client, model: 'scripted-embedding' });
    assert.equal(await index.nearest('anything'), undefined);
    index.update(skills(2));
    await index.idle();
    assert.ok(await index.nearest('anything'));
    index.dispose();
  });
});

describe('EmbeddingIndex on a failing endpoint', () => {
  let fault: EmbeddingFaultServer;
  let logger: ReturnType<typeof memoryLogger>;

  beforeEach(async () => {
    fault = await EmbeddingFaultServer.start(vectorsAnswer((text) => wordVector(text)));
    logger = memoryLogger();
  });

  afterEach(async () => {
    await fault.close();
  });

  async function builtIndex(): Promise<EmbeddingIndex> {
    const index = new EmbeddingIndex({
      embedder: new OpenAiEmbeddingClient({ baseUrl: fault.baseUrl, model: 'm', maxRetries: 0 }),
      model: 'm',
      logger,
      queryDeadlineMs: 300,
    });
    index.update(skills(4));
    await index.idle();
    assert.equal(index.status.state, 'ready');
    return index;
  }

  const lasting: [string, EmbeddingFaultServer['answer'], RegExp][] = [
    ['wrong dimensions', vectorsAnswer(() => [1, 2, 3]), /3 dimensions where it gave 8 before/],
    ['NaN (not valid JSON)', () => ({ status: 200, body: '{"data":[{"index":0,"embedding":[NaN,1]}]}' }), /not valid JSON/],
    ['null inside the vector', vectorsAnswer(() => [null, 1, 0, 0, 0, 0, 0, 0]), /holding null, not a finite number/],
    ['data that is not a list of numbers', vectorsAnswer(() => ({ values: [1] })), /an object where a list of numbers belongs/],
    ['no data list', () => ({ status: 200, body: '{"object":"list"}' }), /without a `data` list/],
    ['HTTP 404', () => ({ status: 404, body: '{"error":{"message":"no route","type":"invalid_request_error"}}' }), /has no embeddings endpoint, or no model "m" \(404\)/],
  ];

  for (const [name, answer, reason] of lasting) {
    it(`falls back to words for ${name}, with one notice`, async () => {
      const index = await builtIndex();
      fault.answer = answer;
      const started = Date.now();
      assert.equal(await index.nearest('a message'), undefined);
      assert.ok(Date.now() - started < 2_000);
      assert.equal(index.status.state, 'unavailable');
      assert.match(index.status.reason ?? '', reason);
      assert.equal(await index.nearest('again'), undefined);
      const requests = fault.bodies.length;
      assert.equal(await index.nearest('and again'), undefined);
      assert.equal(fault.bodies.length, requests, 'an unavailable endpoint is not asked again on every turn');
      const notices = logger.lines.filter((line) => line.startsWith('warn Skill search by meaning is unavailable'));
      assert.equal(notices.length, 1, logger.lines.join('\n'));
      index.dispose();
    });
  }

  it('a hanging endpoint costs each turn at most the deadline, and three in a row make it unavailable', async () => {
    const index = await builtIndex();
    fault.answer = () => 'hang';
    for (let turn = 1; turn <= 3; turn++) {
      const started = Date.now();
      assert.equal(await index.nearest(`message ${turn}`, { deadlineMs: 100 }), undefined);
      assert.ok(Date.now() - started < 1_500, `turn ${turn} waited ${Date.now() - started} ms`);
    }
    assert.equal(index.status.state, 'unavailable');
    assert.match(index.status.reason ?? '', /did not answer within 100 ms 3 times in a row/);
    assert.equal(logger.lines.filter((line) => line.includes('took longer than 100 ms')).length, 1, 'the slow notice is logged once');
    index.dispose();
  });

  it('a server error (5xx) may pass: the next turn asks again', async () => {
    const index = await builtIndex();
    fault.answer = () => ({ status: 503, body: '{"error":{"message":"loading model"}}' });
    assert.equal(await index.nearest('first'), undefined);
    assert.equal(index.status.state, 'ready');
    fault.answer = vectorsAnswer((text) => wordVector(text));
    assert.ok(await index.nearest('second'));
    index.dispose();
  });

  it('tries again after the retry time, and recovers', async () => {
    let now = 1_000;
    const index = new EmbeddingIndex({
      embedder: new OpenAiEmbeddingClient({ baseUrl: fault.baseUrl, model: 'm', maxRetries: 0 }),
      model: 'm',
      logger,
      retryAfterMs: 60_000,
      now: () => now,
    });
    index.update(skills(4));
    await index.idle();
    fault.answer = () => ({ status: 404, body: '{}' });
    assert.equal(await index.nearest('skill-1'), undefined);
    assert.equal(index.status.state, 'unavailable');
    fault.answer = vectorsAnswer((text) => wordVector(text));
    now += 59_000;
    assert.equal(await index.nearest('skill-1'), undefined);
    now += 2_000;
    assert.ok(await index.nearest('skill-1'));
    assert.equal(index.status.state, 'ready');
    index.dispose();
  });

  it('a batch of the wrong length or dimensions while indexing leaves the index unavailable', async () => {
    fault.answer = (input) => ({
      status: 200,
      body: JSON.stringify({ data: input.map((text, index) => ({ index, embedding: index === 1 ? [1, 2] : wordVector(text) })) }),
    });
    const index = new EmbeddingIndex({ embedder: new OpenAiEmbeddingClient({ baseUrl: fault.baseUrl, model: 'm', maxRetries: 0 }), model: 'm', logger });
    index.update(skills(4));
    await index.idle();
    assert.equal(index.status.state, 'unavailable');
    assert.match(index.status.reason ?? '', /different lengths in one batch/);
    assert.equal(await index.nearest('skill-1'), undefined);
    index.dispose();
  });
});
