import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseMemoryFile, serializeMemoryFile } from '../../../src/core/memory/memoryFile';
import type { MemoryDirs } from '../memory/memoryTestDirs';
import { makeMemoryDirs } from '../memory/memoryTestDirs';
import { fixturePath, readFixture } from './formatFixtures';

const V1_MEMORY = [
  'Run the tests with `npm test`; the e2e suite needs Chromium.',
  'The auth service lives in services/auth.\nIts config is auth/config.ts (TIMEOUT_MS).',
  'Releases are cut on Tuesdays, after the standup.',
];
const V1_USER = ['Prefers short answers with code first.', 'Writes British English: colour, behaviour.'];

describe('persisted formats: memory files (MEMORY.md, USER.md)', () => {
  let dirs: MemoryDirs;
  beforeEach(() => {
    dirs = makeMemoryDirs();
    for (const [name, target] of [['v1/MEMORY.md', dirs.memoryFile], ['v1/USER.md', dirs.userFile]] as const) {
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.copyFileSync(fixturePath('memory', name), target);
    }
  });
  afterEach(() => dirs.cleanup());

  it('v1: every entry, multi-line ones whole, reaches the memory view and the prompt', async () => {
    const store = dirs.store();
    const memory = await store.read('memory');
    const user = await store.read('user');
    assert.ok(memory && 'entries' in memory && user && 'entries' in user);
    assert.deepEqual(memory.entries, V1_MEMORY);
    assert.deepEqual(user.entries, V1_USER);
    const snapshot = await store.takeMemorySnapshot();
    for (const entry of [...V1_MEMORY, ...V1_USER]) assert.ok(snapshot.text.includes(entry), entry);
    assert.deepEqual(snapshot.withheld, []);
  });

  it('v1: an edit keeps every old entry, and the file stays in the same format', async () => {
    const result = await dirs.store().apply([{ action: 'add', target: 'memory', content: 'Staging is at staging.example.test.' }]);
    assert.ok(result.ok, result.ok ? '' : result.error);
    const written = fs.readFileSync(dirs.memoryFile, 'utf8');
    assert.deepEqual(parseMemoryFile(written), [...V1_MEMORY, 'Staging is at staging.example.test.']);
    // Today's writer writes v1 byte for byte: if this fails, the format changed and needs a new fixture.
    assert.equal(serializeMemoryFile(parseMemoryFile(readFixture('memory', 'v1/MEMORY.md'))), readFixture('memory', 'v1/MEMORY.md'));
    assert.equal(serializeMemoryFile(parseMemoryFile(readFixture('memory', 'v1/USER.md'))), readFixture('memory', 'v1/USER.md'));
  });
});
