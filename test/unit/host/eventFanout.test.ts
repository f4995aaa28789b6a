import * as assert from 'node:assert/strict';
import { Emitter } from '../../../src/core/base/emitter';
import type { Logger } from '../../../src/core/base/logger';
import { fanOut } from '../../../src/host/eventFanout';

function recordingLogger(lines: string[]): Logger {
  const push = (level: string) => (message: string | Error) => lines.push(`${level}: ${String(message)}`);
  return { trace: push('trace'), debug: push('debug'), info: push('info'), warn: push('warn'), error: push('error') };
}

describe('fanOut (one listener per VS Code event)', () => {
  it('subscribes once and calls every part in the order written, with the event', () => {
    const emitter = new Emitter<string>('test');
    const calls: string[] = [];
    emitter.event(fanOut('Settings changed', { approvals: (e) => calls.push(`approvals ${e}`), memory: (e) => calls.push(`memory ${e}`), skills: (e) => calls.push(`skills ${e}`) }, recordingLogger([])));
    assert.equal(emitter.listenerCount, 1);
    emitter.fire('a');
    emitter.fire('b');
    assert.deepEqual(calls, ['approvals a', 'memory a', 'skills a', 'approvals b', 'memory b', 'skills b']);
  });

  it('logs a part that throws or rejects, by name, and still calls the parts after it', async () => {
    const lines: string[] = [];
    const calls: string[] = [];
    const listener = fanOut(
      'Workspace trusted',
      {
        memory: () => {
          throw new Error('no folder');
        },
        skills: () => Promise.reject(new Error('scan failed')),
        status: () => calls.push('status'),
      },
      recordingLogger(lines),
    );
    listener(undefined);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(calls, ['status']);
    assert.deepEqual(lines.sort(), ['error: Workspace trusted: updating memory failed: no folder', 'error: Workspace trusted: updating skills failed: scan failed']);
  });
});
