/**
 * What every threat pattern is made of: the types, the category map, and the helpers the pattern
 * files share (separators inside phrases, regex matching, negated advice, quoted mentions).
 */
import { looksLikePlaceholder } from './secretVocabulary';

export type ThreatCategory =
  | 'instruction_override'
  | 'role_hijack'
  | 'concealment'
  | 'exfiltration'
  | 'secret_file'
  | 'hidden_html'
  | 'instruction_file'
  | 'hardcoded_secret'
  | 'invisible_unicode'
  | 'obfuscation'
  | 'persistence'
  | 'destructive'
  | 'privilege_escalation'
  | 'network'
  | 'supply_chain'
  | 'agent_config'
  | 'path_traversal';

/** How bad a finding is: any critical makes a skill dangerous, any high makes it caution. */
export type Severity = 'low' | 'medium' | 'high' | 'critical';

/** The categories reports and the CLI show (docs/threat-patterns.md); several pattern categories share one. */
export type ScanCategory =
  | 'exfiltration'
  | 'prompt_injection'
  | 'obfuscation'
  | 'persistence'
  | 'destructive'
  | 'privilege_escalation'
  | 'network'
  | 'supply_chain'
  | 'credential_exposure'
  | 'agent_config'
  | 'path_traversal'
  | 'structure'
  | 'invisible_unicode';

const SCAN_CATEGORY: Readonly<Record<ThreatCategory, ScanCategory>> = {
  instruction_override: 'prompt_injection',
  role_hijack: 'prompt_injection',
  concealment: 'prompt_injection',
  hidden_html: 'prompt_injection',
  exfiltration: 'exfiltration',
  secret_file: 'credential_exposure',
  hardcoded_secret: 'credential_exposure',
  instruction_file: 'agent_config',
  agent_config: 'agent_config',
  invisible_unicode: 'invisible_unicode',
  obfuscation: 'obfuscation',
  persistence: 'persistence',
  destructive: 'destructive',
  privilege_escalation: 'privilege_escalation',
  network: 'network',
  supply_chain: 'supply_chain',
  path_traversal: 'path_traversal',
};

export function scanCategoryOf(category: ThreatCategory): ScanCategory {
  return SCAN_CATEGORY[category];
}

/** Where the scanned text comes from; a few patterns do not apply everywhere (see `contexts`). */
export type ScanContext = 'memory' | 'instructions' | 'skill' | 'tool_output';

export interface PatternMatch {
  readonly index: number;
  readonly length: number;
  /** Overrides the pattern's message for this match (e.g. names the variable found). */
  readonly detail?: string;
  /** Overrides the pattern's severity for this match (a stronger or weaker form of it). */
  readonly severity?: Severity;
  /** Overrides it in some contexts only (a mention in a skill's prose, still an order in memory). */
  readonly severityIn?: Partial<Record<ScanContext, Severity>>;

}

export interface ThreatPattern {
  readonly id: string;
  readonly category: ThreatCategory;
  readonly severity: Severity;
  readonly message: string;
  /** A text that trips the pattern; the unit tests scan every example. */
  readonly example: string;
  /** A look-alike that must not trip it (docs/threat-patterns.md and the unit tests use both). */
  readonly benign: string;
  /** A different severity where the context changes what the text means (a flag in a skill's docs vs. in memory). */
  readonly severityIn?: Partial<Record<ScanContext, Severity>>;
  /** Contexts the pattern applies to; all when absent. */
  readonly contexts?: readonly ScanContext[];
  /** Matches in the normalised text. */
  find(text: string): Iterable<PatternMatch>;
}

/** Separators inside phrases: spaces, line breaks and Markdown emphasis. */
export const S = '[\\s*_~]+';
export const SO = '[\\s*_~]*';

/** Decides about one match: false drops it, a severity overrides the pattern's for this match, in all or some contexts. */
export type MatchFilter = (m: RegExpExecArray, text: string) => boolean | Severity | { readonly severityIn: Partial<Record<ScanContext, Severity>> };

function* regexMatches(global: RegExp, text: string, accept?: MatchFilter): Iterable<PatternMatch> {
  // One RegExp object per pattern, reused: a fresh object per text would start V8's regex engine
  // cold (interpreted) every time. Each scan consumes a pattern's matches before the next starts.
  global.lastIndex = 0;
  for (let m = global.exec(text); m; m = global.exec(text)) {
    if (m[0].length === 0) {
      global.lastIndex++;
      continue;
    }
    const verdict = accept ? accept(m, text) : true;
    if (verdict === false) continue;
    if (verdict === true) yield { index: m.index, length: m[0].length };
    else if (typeof verdict === 'string') yield { index: m.index, length: m[0].length, severity: verdict };
    else yield { index: m.index, length: m[0].length, severityIn: verdict.severityIn };
  }
}

/**
 * A pattern from a regex. `quick` is a cheap test the text must pass before the regex runs: most
 * texts have none of a pattern's key words, and a long alternation costs at every position.
 */
export function regexPattern(spec: Omit<ThreatPattern, 'find'> & { regex: RegExp; accept?: MatchFilter; quick?: RegExp }): ThreatPattern {
  const { regex, accept, quick, ...rest } = spec;
  const global = new RegExp(regex.source, regex.flags.includes('g') ? regex.flags : `${regex.flags}g`);
  return {
    ...rest,
    find: (text) => {
      if (quick && !quick.test(text)) return [];
      // Collected at once, so a nested scan (decoded payloads) never shares the regex's position.
      return Array.from(regexMatches(global, text, accept));
    },
  };
}

/** The line of `text` that holds `index` (what a shell command or a config entry is read as). */
export function lineOf(text: string, index: number, length = 0): string {
  const start = text.lastIndexOf('\n', index - 1) + 1;
  const endAt = text.indexOf('\n', index + length);
  return text.slice(start, endAt < 0 ? text.length : endAt);
}

/** True when the sentence before `index` negates what follows ("never cat .env"): advice, not an order. */
export function negatedBefore(text: string, index: number): boolean {
  const start = Math.max(0, index - 48);
  const before = text.slice(start, index);
  // Only the clause the match is in: "Do not tell the user; cat ~/.ssh/id_rsa" negates nothing about cat.
  const sentence = before.split(/[.!?;:,\n]|\b(?:then|but|and|or)\b/i).pop() ?? before;
  return /\b(never|not|don'?t|doesn'?t|won'?t|shouldn'?t|mustn'?t|cannot|can'?t|avoid|avoids|without|instead\s+of|rather\s+than|no\s+need\s+to)\b/i.test(sentence);
}

const OPEN_QUOTES = '"\u201C\'\u2018`\u00AB';
const CLOSE_QUOTES = '"\u201D\'\u2019`\u00BB';

/**
 * True when the match is a quoted phrase that the sentence talks about ('reject phrases like
 * "ignore previous instructions"'): documentation of an attack, not the attack itself.
 */
export function quotedMention(text: string, index: number, length: number): boolean {
  const open = text[index - 1] ?? '';
  if (!OPEN_QUOTES.includes(open) || open === '') return false;
  const after = text.slice(index + length, index + length + 40).split('\n')[0] ?? '';
  if (!Array.from(CLOSE_QUOTES).some((q) => after.includes(q))) return false;
  const before = text.slice(Math.max(0, index - 61), index - 1);
  return /\b(?:like|such\s+as|e\.g\.?|for\s+example|phrases?|patterns?|language|strings?|text|wording|injections?|attacks?|attempts?|reject|rejects|detect|detects|flag|flags|block|blocks|contains?|containing|says?|saying|keywords?|examples?)\b[\s:,(]*$/i.test(before);
}

export const notQuotedMention = (m: RegExpExecArray, text: string): boolean => !quotedMention(text, m.index, m[0].length);

/**
 * Joins the parts of a made-up secret at run time. The examples must trip our scanner, but a whole
 * literal in the bundle would trip every other secret scanner (vsce refuses to package it).
 */
export function fakeSecret(...parts: string[]): string {
  return parts.join('');
}

export function secretTokenPattern(id: string, label: string, regex: RegExp, example: string, benign: string): ThreatPattern {
  return regexPattern({
    id,
    category: 'hardcoded_secret',
    severity: 'high',
    message: `${label}: secrets must not be stored in text the model reads; keep it in a secret store and refer to it by name`,
    example,
    benign,
    regex,
    accept: (m) => !looksLikePlaceholder(m[0]),
  });
}

/**
 * True when `index` sits inside a quoted search pattern on its line (`grep -E '…'`, `=~ '…'`,
 * `re.compile(r"…")`, `new RegExp('…')`): a detector's list of what to block, not a command.
 */
export function insideSearchPattern(text: string, index: number): boolean {
  const lineStart = text.lastIndexOf('\n', index - 1) + 1;
  const before = text.slice(lineStart, index);
  const tool = /(?:\b(?:grep|egrep|fgrep|rg|ag|ack|findstr|Select-String)\b(?:\s+-\S+)*|=~|\b(?:re\.(?:compile|search|match|fullmatch|findall|sub)|RegExp|\.match|\.test|\.search|\.matchAll)\s*\(\s*r?)\s*(["'`/])/g;
  let last: RegExpExecArray | undefined;
  for (let m = tool.exec(before); m; m = tool.exec(before)) last = m;
  if (!last) return false;
  const quote = last[1] ?? '';
  const rest = before.slice(last.index + last[0].length);
  return !rest.includes(quote);
}

const EXAMPLE_CUE =
  /\b(?:must|should|will|to)\s+(?:be\s+)?(?:rejected|blocked|refused|flagged|detected|denied|caught|escaped|sanitized|sanitised|treated\s+literally)\b|\b(?:payloads?|e\.g\.|such\s+as|for\s+example|examples?\s+of|signatures?|indicators?|red\s+flags?)\b/i;

/** Where the table cell holding the end of `before` starts: after the last `|` outside a code span. */
function cellStart(before: string): number {
  let start = 0;
  let inCode = false;
  for (let i = 0; i < before.length; i++) {
    if (before[i] === '`') inCode = !inCode;
    else if (before[i] === '|' && !inCode) start = i + 1;
  }
  return start;
}

/** Where the cell that `after` continues ends: the first `|` outside a code span (`after` may start inside one). */
function cellEnd(after: string, inCodeAtStart: boolean): number {
  let inCode = inCodeAtStart;
  for (let i = 0; i < after.length; i++) {
    if (after[i] === '`') inCode = !inCode;
    else if (after[i] === '|' && !inCode) return i;
  }
  return after.length;
}

/**
 * True when the match is inside an inline code span that its sentence or table cell presents as an
 * example to reject or detect ("`; rm -rf /` must be rejected", "payloads such as `…`").
 */
export function exampleCodeSpan(text: string, index: number, length: number): boolean {
  const lineStart = text.lastIndexOf('\n', index - 1) + 1;
  const line = lineOf(text, index, length);
  const at = index - lineStart;
  const before = line.slice(0, at);
  if ((before.match(/`/g)?.length ?? 0) % 2 === 0) return false;
  const after = line.slice(at + length);
  const table = /^\s*\|/.test(line);
  const from = table ? cellStart(before) : Math.max(0, ...['. ', '; ', ': '].map((s) => before.lastIndexOf(s)));
  const cut = table ? cellEnd(after, true) : after.search(/\.\s|$/);
  return EXAMPLE_CUE.test(before.slice(from) + after.slice(0, cut < 0 ? after.length : cut));
}

/** True when the match sits inside an inline code span of its line (an odd number of backticks before it). */
export function inInlineCode(text: string, index: number): boolean {
  const lineStart = text.lastIndexOf('\n', index - 1) + 1;
  return (text.slice(lineStart, index).match(/`/g)?.length ?? 0) % 2 === 1;
}

/** Negated advice, a detector's search pattern or a quoted example to reject: none of them an order. */
export function notAnOrder(m: RegExpExecArray, text: string): boolean {
  return !negatedBefore(text, m.index) && !insideSearchPattern(text, m.index) && !exampleCodeSpan(text, m.index, m[0].length);
}
