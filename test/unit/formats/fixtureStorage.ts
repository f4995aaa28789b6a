import * as fs from 'node:fs';
import * as path from 'node:path';
import { NodeFileSystem } from '../../../src/core/base/nodeFileSystem';
import { NodeAppendPort, SessionLog } from '../../../src/core/sessions/sessionLog';
import { RecordingLogger } from '../sessions/sessionFixture';
import type { FIXTURES } from './formatFixtures';
import { fixturePath, tempDir } from './formatFixtures';

/** A NodeFileSystem that counts the session files it reads, to tell a reused index from a rebuilt one. */
export class CountingFileSystem extends NodeFileSystem {
  sessionReads = 0;
  override readFile(file: string): Promise<Uint8Array> {
    if (file.endsWith('.jsonl')) this.sessionReads++;
    return super.readFile(file);
  }
}

export type SessionFixture = (typeof FIXTURES.sessions)[number];

export interface FixtureStorage {
  readonly dir: string;
  readonly fs: CountingFileSystem;
  readonly log: SessionLog;
  readonly logger: RecordingLogger;
  readonly cleanup: () => void;
}

/**
 * A storage folder holding copies of the given session fixtures (ids are the file names without
 * `.jsonl`), and the saved session index (schema 2) when `withIndex`.
 */
export function fixtureStorage(sessions: readonly SessionFixture[], withIndex: boolean): FixtureStorage {
  const temp = tempDir('formats-sessions');
  fs.mkdirSync(path.join(temp.dir, 'sessions'));
  for (const name of sessions) fs.copyFileSync(fixturePath('sessions', name), path.join(temp.dir, 'sessions', name));
  if (withIndex) fs.copyFileSync(fixturePath('session-index', 'v2.sqlite'), path.join(temp.dir, 'session-index.sqlite'));
  const counting = new CountingFileSystem();
  const logger = new RecordingLogger();
  const log = new SessionLog({ fs: counting, append: new NodeAppendPort(), storageDir: temp.dir, logger });
  return { dir: temp.dir, fs: counting, log, logger, cleanup: temp.cleanup };
}
