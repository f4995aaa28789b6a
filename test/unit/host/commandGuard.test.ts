import * as assert from 'node:assert/strict';
import type { Logger } from '../../../src/core/base/logger';
import type { CommandFailureUi } from '../../../src/host/commandGuard';
import { guardCommand, SHOW_LOGS_ACTION } from '../../../src/host/commandGuard';

function recordingLogger(lines: string[]): Logger {
  const push = (level: string) => (message: string | Error) => lines.push(`${level}: ${String(message)}`);
  return { trace: push('trace'), debug: push('debug'), info: push('info'), warn: push('warn'), error: push('error') };
}

/** Answers the error message with `choice` and records what was shown and whether the log was opened. */
function scriptedUi(choice: string | undefined) {
  const shown: { message: string; actions: string[] }[] = [];
  let logsOpened = 0;
  let answered: () => void = () => undefined;
  const answeredOnce = new Promise<void>((resolve) => (answered = resolve));
  const ui: CommandFailureUi = {
    showError: (message, ...actions) => {
      shown.push({ message, actions });
      answered();
      return Promise.resolve(choice);
    },
    showLogs: () => {
      logsOpened += 1;
    },
  };
  return { ui, shown, answeredOnce, logsOpened: () => logsOpened };
}

describe('guardCommand (the wrapper of every Skillwright command)', () => {
  it('logs a failing command with its id, shows the error with a Show Logs button, and opens the log when clicked', async () => {
    const lines: string[] = [];
    const { ui, shown, answeredOnce, logsOpened } = scriptedUi(SHOW_LOGS_ACTION);
    const command = guardCommand('skillwright.newSkillFromTemplate', () => Promise.reject(new Error('No workspace folder is named "nope".')), recordingLogger(lines), ui);

    const result = await command();
    await answeredOnce;
    await new Promise((resolve) => setImmediate(resolve));

    assert.equal(result, undefined);
    assert.ok(lines.includes('error: Command skillwright.newSkillFromTemplate failed: No workspace folder is named "nope".'), lines.join('\n'));
    assert.deepEqual(shown, [{ message: 'Skillwright: No workspace folder is named "nope".', actions: [SHOW_LOGS_ACTION] }]);
    assert.equal(logsOpened(), 1);
  });

  it('reports a synchronous throw the same way, and leaves the log closed when the message is dismissed', async () => {
    const lines: string[] = [];
    const { ui, shown, answeredOnce, logsOpened } = scriptedUi(undefined);
    const command = guardCommand('skillwright.stop', () => {
      throw new TypeError('broken');
    }, recordingLogger(lines), ui);

    await command();
    await answeredOnce;
    await new Promise((resolve) => setImmediate(resolve));

    assert.ok(lines.some((line) => line === 'error: Command skillwright.stop failed: broken'));
    assert.equal(shown[0]?.message, 'Skillwright: broken');
    assert.equal(logsOpened(), 0);
  });

  it('passes arguments and results through, and shows nothing when the command succeeds', async () => {
    const lines: string[] = [];
    const { ui, shown } = scriptedUi(undefined);
    const command = guardCommand('skillwright.openSkill', (...args: unknown[]) => Promise.resolve(`opened ${String(args[0])}`), recordingLogger(lines), ui);
    assert.equal(await command('count-files'), 'opened count-files');
    assert.deepEqual(shown, []);
    assert.deepEqual(lines, []);
  });

  it('treats a cancellation as no failure: logged, not shown', async () => {
    const lines: string[] = [];
    const { ui, shown } = scriptedUi(undefined);
    const cancelled = Object.assign(new Error('Canceled'), { name: 'Canceled' });
    await guardCommand('skillwright.reindexSkills', () => Promise.reject(cancelled), recordingLogger(lines), ui)();
    assert.deepEqual(shown, []);
    assert.deepEqual(lines, ['info: Command skillwright.reindexSkills was cancelled']);
  });

  it('keeps going when the error message itself cannot be shown', async () => {
    const lines: string[] = [];
    const ui: CommandFailureUi = { showError: () => Promise.reject(new Error('no window')), showLogs: () => undefined };
    assert.equal(await guardCommand('skillwright.stop', () => Promise.reject(new Error('x')), recordingLogger(lines), ui)(), undefined);
    await new Promise((resolve) => setImmediate(resolve));
    assert.ok(lines.some((line) => line === 'warn: Could not show the error message: no window'), lines.join('\n'));
  });
});
