import type { ConsentCardView } from '../shared/protocol';

/**
 * What the person just did on the consent card. A decision goes to the host, which answers with
 * a new card; until then the action is kept, so the card knows where focus goes and what to say
 * once the answer shows its outcome.
 */
export type ConsentAction =
  | {
      readonly kind: 'decide';
      readonly file: string;
      readonly hash: string;
      readonly name: string;
      readonly decision: 'approve' | 'decline';
      /** Its state on the card it was decided on (a reviewed card lists declined skills too). */
      readonly was: 'pending' | 'declined';
      /** The card's skills (files) in order when it was decided: focus moves on from its place. */
      readonly order: readonly string[];
    }
  | { readonly kind: 'approveAll'; readonly hashes: readonly string[] }
  | { readonly kind: 'later' };

/** Where focus goes: a skill's first button, the card's heading, or the control after the card. */
export type ConsentFocus = { readonly kind: 'skill'; readonly file: string } | { readonly kind: 'heading' } | { readonly kind: 'after' };

export interface ConsentOutcome {
  readonly focus: ConsentFocus;
  /** For screen readers (the card's live region). */
  readonly message: string;
}

const skills = (n: number): string => `${n} project skill${n === 1 ? '' : 's'}`;

/** What is left to decide: said after every outcome, so a person who cannot see the card knows. */
function remaining(view: ConsentCardView): string {
  const pending = view.skills.filter((skill) => skill.state === 'pending').length;
  if (pending > 0) return `${skills(pending)} still ${pending === 1 ? 'waits' : 'wait'} for a decision.`;
  return view.skills.length > 0 ? 'No skill on the card waits for a decision.' : 'No project skill waits for consent any more.';
}

/** Nothing pending: the heading while the card still shows (declined skills under review), else what follows the card. */
function noPending(view: ConsentCardView): ConsentFocus {
  return view.skills.length > 0 ? { kind: 'heading' } : { kind: 'after' };
}

/** The first pending skill after `file`'s place on the old card, else the nearest one before it. */
function nextPending(view: ConsentCardView, file: string, order: readonly string[]): ConsentFocus {
  const pending = view.skills.filter((skill) => skill.state === 'pending');
  if (pending.length === 0) return noPending(view);
  const place = order.indexOf(file);
  // Skills the old card did not show (they arrived meanwhile) count as coming after every old one.
  const rank = (candidate: string): number => {
    const at = order.indexOf(candidate);
    return at === -1 ? order.length : at;
  };
  const after = pending.filter((skill) => skill.file !== file && rank(skill.file) > place);
  if (after.length > 0) return { kind: 'skill', file: after.reduce((a, b) => (rank(b.file) < rank(a.file) ? b : a)).file };
  const before = pending.filter((skill) => skill.file !== file);
  if (before.length > 0) return { kind: 'skill', file: before.reduce((a, b) => (rank(b.file) > rank(a.file) ? b : a)).file };
  return noPending(view);
}

/**
 * The outcome of `action` as the host's card `view` shows it, or undefined while the card does
 * not show it yet (an unrelated update arrived first): the action is then kept for the next card.
 */
export function consentOutcome(action: ConsentAction, view: ConsentCardView): ConsentOutcome | undefined {
  switch (action.kind) {
    case 'later':
      return { focus: { kind: 'after' }, message: 'Card hidden. The project skills stay out until you decide; Skillwright: Review Project Skills… shows them again.' };
    case 'approveAll': {
      const wanted = new Set(action.hashes);
      if (view.skills.some((skill) => wanted.has(skill.hash))) return undefined;
      const pending = view.skills.find((skill) => skill.state === 'pending');
      return { focus: pending ? { kind: 'skill', file: pending.file } : noPending(view), message: `Approved ${skills(action.hashes.length)}. ${remaining(view)}` };
    }
    case 'decide': {
      const same = view.skills.find((skill) => skill.file === action.file);
      if (same && same.hash === action.hash && same.state === action.was) return undefined;
      if (same && same.hash !== action.hash && same.state === 'pending') {
        return { focus: { kind: 'skill', file: same.file }, message: `${action.name} changed before the decision arrived, so nothing was decided; look at its new content. ${remaining(view)}` };
      }
      const done = action.decision === 'approve' ? `Approved ${action.name}.` : `Kept ${action.name} out of the catalog.`;
      return { focus: nextPending(view, action.file, action.order), message: `${done} ${remaining(view)}` };
    }
  }
}
