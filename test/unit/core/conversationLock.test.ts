import * as assert from 'node:assert/strict';
import { ConversationLock } from '../../../src/core/base/conversationLock';

describe('ConversationLock', () => {
  it('gives the lock to the first of two takers in the same tick and refuses the second', () => {
    const lock = new ConversationLock();
    const first = lock.tryTake('turn');
    const second = lock.tryTake('turn');
    assert.ok(first);
    assert.equal(second, undefined);
    assert.equal(lock.held, 'turn');
    lock.release(first);
    assert.equal(lock.held, undefined);
  });

  it('stop() aborts the holder, which keeps the lock until it releases', () => {
    const lock = new ConversationLock();
    const claim = lock.tryTake('turn');
    assert.ok(claim);
    lock.stop();
    assert.equal(claim.signal.aborted, true);
    assert.equal(lock.stopping, true);
    assert.equal(lock.tryTake('turn'), undefined, 'a send during Stop does not start a second turn');
    lock.release(claim);
    assert.equal(lock.stopping, false);
    assert.ok(lock.tryTake('turn'));
  });

  it('take() waits for the holder and then takes the lock before anyone else can', async () => {
    const lock = new ConversationLock();
    const turn = lock.tryTake('turn');
    assert.ok(turn);
    const order: string[] = [];
    const switching = lock.take('switch').then((claim) => {
      order.push(`took ${claim.kind}`);
      return claim;
    });
    await Promise.resolve();
    assert.deepEqual(order, []);
    lock.release(turn);
    assert.equal(lock.tryTake('turn'), undefined, 'the waiting switch is next; a send now is refused');
    const claim = await switching;
    assert.deepEqual(order, ['took switch']);
    assert.equal(lock.held, 'switch');
    lock.release(claim);
    await lock.whenFree();
    assert.equal(lock.held, undefined);
  });

  it('ignores the release of a claim that no longer holds the lock', () => {
    const lock = new ConversationLock();
    const first = lock.tryTake('turn');
    assert.ok(first);
    lock.release(first);
    const second = lock.tryTake('switch');
    lock.release(first);
    assert.equal(lock.held, 'switch');
    assert.ok(second);
  });
});
