import * as assert from 'node:assert/strict';
import { DisposableStore } from '../../../src/core/base/disposableStore';
import type { Logger } from '../../../src/core/base/logger';
import { describeError } from '../../../src/core/base/logger';

function recordingLogger(lines: string[]): Logger {
  const push = (level: string) => (message: string | Error) => lines.push(`${level}: ${String(message)}`);
  return { trace: push('trace'), debug: push('debug'), info: push('info'), warn: push('warn'), error: push('error') };
}

describe('DisposableStore', () => {
  it('disposes in reverse order, once', () => {
    const order: string[] = [];
    const store = new DisposableStore();
    store.add({ dispose: () => order.push('a') });
    store.add({ dispose: () => order.push('b') });
    store.addCallback(() => order.push('c'));
    assert.equal(store.size, 3);
    store.dispose();
    store.dispose();
    assert.deepEqual(order, ['c', 'b', 'a']);
    assert.equal(store.size, 0);
    assert.ok(store.isDisposed);
  });

  it('keeps disposing when one item throws, and logs it', () => {
    const lines: string[] = [];
    const order: string[] = [];
    const store = new DisposableStore(recordingLogger(lines));
    store.add({ dispose: () => order.push('first') });
    store.add({
      dispose: () => {
        throw new Error('broken watcher');
      },
    });
    store.add({ dispose: () => order.push('last') });
    store.dispose();
    assert.deepEqual(order, ['last', 'first']);
    assert.equal(lines.length, 1);
    assert.match(lines[0] ?? '', /^error: .*broken watcher/);
  });

  it('releases at once what is added after dispose', () => {
    const lines: string[] = [];
    let released = false;
    const store = new DisposableStore(recordingLogger(lines));
    store.dispose();
    store.add({ dispose: () => (released = true) });
    assert.ok(released);
    assert.match(lines[0] ?? '', /^warn: /);
  });

  it('clears what it holds in reverse order and stays usable, until disposed', () => {
    const order: string[] = [];
    const store = new DisposableStore();
    store.add({ dispose: () => order.push('a') });
    store.add({ dispose: () => order.push('b') });
    store.clear();
    assert.deepEqual(order, ['b', 'a']);
    assert.equal(store.size, 0);
    assert.equal(store.isDisposed, false);
    store.add({ dispose: () => order.push('c') });
    assert.deepEqual(order, ['b', 'a'], 'an item added after clear() is kept, not released at once');
    store.dispose();
    assert.deepEqual(order, ['b', 'a', 'c']);
  });
});

describe('describeError', () => {
  it('renders errors, strings and objects', () => {
    assert.equal(describeError(new Error('x failed')), 'x failed');
    assert.equal(describeError('plain'), 'plain');
    assert.equal(describeError({ code: 7 }), '{"code":7}');
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    assert.equal(describeError(cyclic), '[object Object]');
  });
});
