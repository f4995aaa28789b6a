import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { MemoryTextStore } from '../../../src/core/base/textStore';
import { NodeFileSystem } from '../../../src/core/base/nodeFileSystem';
import { SessionIndex } from '../../../src/core/sessions/sessionIndex';
import { NodeAppendPort, SessionLog } from '../../../src/core/sessions/sessionLog';
import { SNAPSHOT_VERSION, encodeIndexSnapshot } from '../../../src/core/skills/index/indexSnapshot';
import { SkillUsage } from '../../../src/core/skills/index/skillUsage';
import { sharedSqlJs } from '../sessions/sessionFixture';
import { FIXTURES, NOT_FIXTURES, filesUnder, fixturesDir, tempDir } from './formatFixtures';

/**
 * The inventory: every fixture is one the format tests load, and the version each writer writes
 * today has a fixture. When a format changes, its version goes up and this fails until the new
 * version's fixture is generated (test/fixtures/formats/generate.mjs) and loaded by a test.
 */
describe('persisted formats: fixtures of every written version', () => {
  it('the fixtures folder holds exactly the listed fixtures', () => {
    const listed = Object.entries(FIXTURES).flatMap(([format, names]) => names.map((name) => `${format}/${name}`));
    const found = filesUnder(fixturesDir).filter((file) => !NOT_FIXTURES.some((pattern) => pattern.test(file)));
    assert.deepEqual(found, [...listed].sort());
  });

  it('session files: the version written today has a fixture', async () => {
    const temp = tempDir('formats-inventory');
    try {
      const log = new SessionLog({ fs: new NodeFileSystem(), append: new NodeAppendPort(), storageDir: temp.dir });
      await log.create({ id: 'today', model: 'm', systemPrompt: 's' });
      const version = (await log.read('today'))?.header?.v;
      assert.ok(FIXTURES.sessions.includes(`v${String(version)}.jsonl`), `no fixture for session files v${String(version)}`);
    } finally {
      temp.cleanup();
    }
  });

  it('the session index: the schema written today has a fixture', async () => {
    const temp = tempDir('formats-inventory');
    const log = new SessionLog({ fs: new NodeFileSystem(), append: new NodeAppendPort(), storageDir: temp.dir });
    const index = new SessionIndex({ log, sqlJs: sharedSqlJs, saveDelayMs: 60_000 });
    try {
      await index.ready();
      await index.flush();
      const SQL = await sharedSqlJs();
      const db = new SQL.Database(fs.readFileSync(path.join(temp.dir, 'session-index.sqlite')));
      const version = db.exec('PRAGMA user_version')[0]?.values[0]?.[0];
      db.close();
      assert.ok(FIXTURES['session-index'].includes(`v${String(version)}.sqlite`), `no fixture for session index schema ${String(version)}`);
    } finally {
      index.dispose();
      temp.cleanup();
    }
  });

  it('the skill index snapshot: the version written today has a fixture', () => {
    const written = (JSON.parse(encodeIndexSnapshot([])) as { version: unknown }).version;
    assert.equal(written, SNAPSHOT_VERSION);
    assert.ok(FIXTURES['skill-index'].includes(`v${SNAPSHOT_VERSION}.json`), `no fixture for snapshot v${SNAPSHOT_VERSION}`);
  });

  it('skill usage: the version written today has a fixture', async () => {
    const store = new MemoryTextStore();
    const usage = new SkillUsage(store);
    await usage.load();
    await usage.flush();
    const version = (JSON.parse((await store.read()) ?? '{}') as { version?: unknown }).version;
    assert.ok(FIXTURES.usage.includes(`v${String(version)}.json`), `no fixture for usage v${String(version)}`);
  });
});
