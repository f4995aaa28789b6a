import * as assert from 'node:assert/strict';
import { Emitter } from '../../../src/core/base/emitter';
import { nullLogger } from '../../../src/core/base/logger';

describe('Emitter', () => {
  it('delivers to every listener, logs one that throws, and stops delivering after dispose', () => {
    const errors: string[] = [];
    const logger = { ...nullLogger, error: (m: string | Error) => void errors.push(String(m)) };
    const emitter = new Emitter<number>('Numbers', logger);
    const heard: number[] = [];
    emitter.event(() => {
      throw new Error('boom');
    });
    const sub = emitter.event((n) => heard.push(n));
    emitter.fire(1);
    sub.dispose();
    emitter.fire(2);
    assert.deepEqual(heard, [1]);
    assert.equal(errors.length, 2);
    assert.match(errors[0] ?? '', /Numbers: a listener failed: boom/);
    emitter.dispose();
    assert.equal(emitter.listenerCount, 0);
  });

  it('lets a listener added during delivery hear only the next event', () => {
    const emitter = new Emitter<string>('Late');
    const heard: string[] = [];
    emitter.event(() => {
      emitter.event((e) => heard.push(e));
    });
    emitter.fire('a');
    assert.deepEqual(heard, []);
    emitter.fire('b');
    assert.deepEqual(heard, ['b']);
  });
});
