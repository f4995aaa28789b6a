// Phrases that tell an agent when to pick a skill. Tuned on the 612 corpus skills: each pattern
// was read against every description it matched, and the misses were read by hand (see
// docs/lint-rules.md, SW305). `when` alone is not enough ("only when appropriate", "when
// installed"): it must introduce a situation (a subject, `asked`, a gerund, "to use").
const SIGNALS: readonly RegExp[] = [
  /\bwhen(?:ever)?\b[\s:,-]+(?:to use|the|a|an|you|your|users?|someone|asked|requested|there|people|developers?|agents?|[a-z]{2,}ing)\b/i,
  /\buse (?:this|it|these|them|when|whenever|for|if|after|before|only|during|while)\b/i,
  /\btrigger(?:s|ed)?\b/i,
  /\bif (?:you|the user|a user|asked|needed|the task|your)\b/i,
  /\b(?:suited|ideal|useful|helpful|intended|designed|meant) (?:for|when)\b/i,
  /\b(?:user|you) (?:asks?|wants?|needs?|requests?|mentions?|says?)\b/i,
  /\b(?:load|invoke|activate|apply|call) (?:this|it)\b/i,
];

// "for <gerund>" names the job the skill is for ("Toolkit for styling artifacts"); these words end
// in -ing without being gerunds.
const FOR_GERUND = /\bfor ([a-z]+ing)\b/gi;
const NOT_GERUNDS = new Set([
  'string', 'thing', 'nothing', 'something', 'anything', 'everything', 'spring', 'ring', 'king',
  'bring', 'wing', 'sing', 'during', 'ping', 'swing', 'sling', 'sting', 'ceiling', 'morning',
  'evening', 'wedding', 'pudding', 'clothing',
]);

/** True when a description says when to use the skill, not only what it does. */
export function hasWhenToUseSignal(description: string): boolean {
  const text = description.replace(/\s+/g, ' ');
  if (SIGNALS.some((pattern) => pattern.test(text))) {
    return true;
  }
  for (const match of text.matchAll(FOR_GERUND)) {
    // The group always takes part in a match; the check only narrows the type.
    const word = match[1];
    if (word !== undefined && !NOT_GERUNDS.has(word.toLowerCase())) {
      return true;
    }
  }
  return false;
}
