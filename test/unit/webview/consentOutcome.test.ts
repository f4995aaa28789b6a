import * as assert from 'node:assert/strict';
import type { ConsentCardView, ConsentSkillView } from '../../../src/shared/protocol';
import type { ConsentAction, ConsentOutcome } from '../../../src/webview/consentOutcome';
import { consentOutcome } from '../../../src/webview/consentOutcome';
import { consentCard, consentSkill } from './consentFixture';

const skill = consentSkill;
const card = consentCard;
const [a, b, c] = [skill('alpha'), skill('beta'), skill('gamma')];
const order = [a.file, b.file, c.file];

function settled(action: ConsentAction, view: ConsentCardView): ConsentOutcome {
  const outcome = consentOutcome(action, view);
  assert.ok(outcome, 'the card shows the outcome');
  return outcome;
}

function decide(target: ConsentSkillView, decision: 'approve' | 'decline' = 'approve', on: readonly string[] = order): ConsentAction {
  return { kind: 'decide', file: target.file, hash: target.hash, name: target.name, decision, was: target.state, order: on };
}

describe('consent card: where focus goes and what is said after a decision', () => {
  it('waits while the card still shows the decided skill as it was (an update that is not the answer)', () => {
    assert.equal(consentOutcome(decide(b), card([a, b, c])), undefined);
  });

  it('moves to the next pending skill after an approval, and says what happened and what is left', () => {
    const outcome = settled(decide(b), card([a, c]));
    assert.deepEqual(outcome.focus, { kind: 'skill', file: c.file });
    assert.equal(outcome.message, 'Approved beta. 2 project skills still wait for a decision.');
  });

  it('moves back to the nearest earlier skill when the last one was decided', () => {
    const outcome = settled(decide(c, 'decline'), card([a, b]));
    assert.deepEqual(outcome.focus, { kind: 'skill', file: b.file });
    assert.equal(outcome.message, 'Kept gamma out of the catalog. 2 project skills still wait for a decision.');
  });

  it('passes over skills that are declined on a reviewed card, and lands on pending ones only', () => {
    const declinedB = skill('beta', { state: 'declined', reason: 'declined' });
    const outcome = settled(decide(a), card([declinedB, c], true));
    assert.deepEqual(outcome.focus, { kind: 'skill', file: c.file });
  });

  it('keeps a declined skill on a reviewed card and still counts the decision as done', () => {
    const outcome = settled(decide(a, 'decline'), card([skill('alpha', { state: 'declined', reason: 'declined' }), b], true));
    assert.deepEqual(outcome.focus, { kind: 'skill', file: b.file });
    assert.match(outcome.message, /^Kept alpha out of the catalog\. 1 project skill still waits/);
  });

  it('goes to the heading when the card still shows skills but none is pending', () => {
    const outcome = settled(decide(a, 'decline', [a.file]), card([skill('alpha', { state: 'declined', reason: 'declined' })], true));
    assert.deepEqual(outcome.focus, { kind: 'heading' });
    assert.equal(outcome.message, 'Kept alpha out of the catalog. No skill on the card waits for a decision.');
  });

  it('goes past the card when the last skill was decided and the card closes', () => {
    const outcome = settled(decide(a, 'approve', [a.file]), card([]));
    assert.deepEqual(outcome.focus, { kind: 'after' });
    assert.equal(outcome.message, 'Approved alpha. No project skill waits for consent any more.');
  });

  it('says so when the skill changed before the decision arrived, and stays on it', () => {
    const changed = skill('beta', { hash: 'beta-new-hash', reason: 'changed' });
    const outcome = settled(decide(b), card([a, changed, c]));
    assert.deepEqual(outcome.focus, { kind: 'skill', file: b.file });
    assert.match(outcome.message, /^beta changed before the decision arrived, so nothing was decided/);
  });

  it('treats skills that arrived meanwhile as coming after the old ones', () => {
    const delta = skill('delta');
    const outcome = settled(decide(c), card([a, b, delta]));
    assert.deepEqual(outcome.focus, { kind: 'skill', file: delta.file });
  });

  it('Approve All: waits until none of the approved hashes is on the card, then goes to what is left', () => {
    const action: ConsentAction = { kind: 'approveAll', hashes: [a.hash, b.hash] };
    assert.equal(consentOutcome(action, card([a, b])), undefined);
    assert.deepEqual(consentOutcome(action, card([])), { focus: { kind: 'after' }, message: 'Approved 2 project skills. No project skill waits for consent any more.' });
    const late = skill('late');
    assert.deepEqual(settled(action, card([late])).focus, { kind: 'skill', file: late.file });
  });

  it('Later: goes past the card at once and says how to bring it back', () => {
    const outcome = settled({ kind: 'later' }, card([a]));
    assert.deepEqual(outcome.focus, { kind: 'after' });
    assert.match(outcome.message, /Review Project Skills/);
  });
});
