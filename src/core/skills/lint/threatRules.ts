import type { ThreatCategory } from '../../security/threatPatterns';
import type { ThreatFinding } from '../../security/threatScanner';
import { escapeInvisible, scanText } from '../../security/threatScanner';
import type { LintFinding, TextRange } from '../model/skillTypes';
import { finding } from '../model/lintRules';
import type { RuleInput } from './ruleInput';
import { range } from '../model/textRanges';
import { lineAt, lineStarts } from '../../text/lines';

/**
 * SW901: the threat scanner over the whole SKILL.md, frontmatter and body together. A skill's text
 * goes into the model's context as instructions, so anything the memory tool would refuse to store
 * is reported here, with the pattern id the scanner documents (docs/threat-patterns.md).
 */
export function checkThreats(input: RuleInput): LintFinding[] {
  const text = input.parsed.text;
  const { findings } = scanText(text, { context: 'skill' });
  if (findings.length === 0) {
    return [];
  }
  const starts = lineStarts(text);
  return findings.map((threat) => {
    const at = threatRange(input.lines, starts, threat.index);
    const quoted = (input.lines[at.startLine] ?? '').slice(at.startColumn, at.endColumn);
    return finding('SW901', message(threat, quoted), at);
  });
}

/**
 * From the match to the end of its line: the scanner gives where a match starts, not where it ends,
 * and a line is what an author reads and rewrites. At least one character, so an invisible one at
 * the end of a line (which trimming would drop) still gets a visible squiggle.
 */
function threatRange(lines: readonly string[], starts: readonly number[], index: number): TextRange {
  const low = lineAt(starts, index);
  const line = Math.min(low, lines.length - 1);
  const text = lines[line] ?? '';
  // starts always holds 0 for the first line.
  const column = Math.min(index - (starts[low] ?? 0), text.length);
  const end = Math.max(text.trimEnd().length, Math.min(column + 1, text.length));
  return range(line, column, line, end);
}

const ADVICE: Partial<Record<ThreatCategory, string>> = {
  hardcoded_secret: 'Remove it from the skill and revoke it: everyone who can read the skill has it.',
  invisible_unicode: 'Delete the invisible characters: they hide or reorder text for anyone reviewing the skill.',
};

const DEFAULT_ADVICE =
  'A skill is text the model follows, so this would act on it: remove it. If it is a warning or an example, write it as one ' +
  '(negated advice such as "never …", or a quoted phrase introduced with "phrases like"), which the scanner accepts.';

/** Longest quote of the flagged line in a message. */
const MAX_QUOTE = 80;

/**
 * The quote is the flagged line from the match on, not the scanner's excerpt: the excerpt takes in
 * neighbouring lines, and skill_manage tells a finding that was already there from a new one by its
 * message, so an edit next to old text must not change it.
 */
function message(threat: ThreatFinding, quoted: string): string {
  const what = threat.message.charAt(0).toUpperCase() + threat.message.slice(1);
  const cut = Array.from(quoted);
  const shown = escapeInvisible(cut.length > MAX_QUOTE ? `${cut.slice(0, MAX_QUOTE - 1).join('')}…` : quoted);
  const advice = ADVICE[threat.category] ?? DEFAULT_ADVICE;
  return `${what} (threat pattern ${threat.id}): "${shown}". ${advice}`;
}
