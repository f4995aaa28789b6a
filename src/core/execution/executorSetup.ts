import * as nodeFs from 'node:fs/promises';
import type { FileSystemPort } from '../base/fileSystemPort';
import type { Logger } from '../base/logger';
import type { SkillIndex } from '../skills/index/skillIndex';
import type { RunApproval } from './executionTypes';
import type { ExecutorDeps, RunFeedback, RunTuning } from './skillExecutor';
import { SkillExecutor } from './skillExecutor';
import { indexSkillLoader } from './skillLoader';
import { NodeScriptPort } from './nodeScriptPort';
import { NodeHttpPort } from './nodeHttpPort';
import { defaultSleep } from './httpRunner';
import { SchemaValidator } from './schemaValidator';
import { TraceStore } from './traceStore';
import { runnableProblems } from './runnableCheck';

/** Node's appendFile, for trace lines. */
export const nodeTraceAppend = { append: (file: string, text: string): Promise<void> => nodeFs.appendFile(file, text, 'utf8') };

export interface NodeExecutorOptions {
  readonly index: SkillIndex;
  readonly fs: FileSystemPort;
  /** Where sessions (and so traces) live: the extension's global storage, or the CLI's data dir. */
  readonly storageDir: string;
  readonly processEnv: Readonly<Record<string, string | undefined>>;
  readonly approve: RunApproval;
  readonly mayRun: ExecutorDeps['mayRun'];
  readonly feedback?: RunFeedback;
  readonly tuning?: RunTuning;
  readonly logger?: Logger;
}

/** The executor with the real processes, HTTP, schemas and trace files: what the host and the CLI both run. */
export function createNodeExecutor(options: NodeExecutorOptions): { executor: SkillExecutor; traces: TraceStore; validator: SchemaValidator } {
  const traces = new TraceStore({ fs: options.fs, append: nodeTraceAppend, storageDir: options.storageDir, ...(options.logger ? { logger: options.logger } : {}) });
  const validator = new SchemaValidator();
  const executor = new SkillExecutor({
    load: indexSkillLoader(options.index, options.fs),
    scripts: new NodeScriptPort(),
    http: new NodeHttpPort(),
    validator,
    sleep: defaultSleep,
    approve: options.approve,
    checkBeforeRun: (name) => runnableProblems(options.index, name),
    traces,
    ...(options.feedback ? { feedback: options.feedback } : {}),
    ...(options.tuning ? { tuning: options.tuning } : {}),
    processEnv: options.processEnv,
    nodePath: process.execPath,
    readFirstLine: readFirstLine,
    mayRun: options.mayRun,
    ...(options.logger ? { logger: options.logger } : {}),
  });
  return { executor, traces, validator };
}

/** The first line of a script, for its shebang; undefined when it cannot be read. */
export async function readFirstLine(file: string): Promise<string | undefined> {
  let handle: nodeFs.FileHandle | undefined;
  try {
    handle = await nodeFs.open(file, 'r');
    const buffer = Buffer.alloc(256);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return buffer.subarray(0, bytesRead).toString('utf8').split(/\r?\n/)[0];
  } catch {
    return undefined;
  } finally {
    await handle?.close();
  }
}
