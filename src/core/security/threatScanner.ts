/**
 * Scans untrusted text (memory entries, instruction files, skills, tool output) for prompt
 * injection, exfiltration, secrets and invisible characters. Pure and synchronous; never throws.
 * The patterns and their ids live in threatPatterns.ts and are documented in docs/threat-patterns.md.
 */
import { findEncodedPayloads } from './encodedPayloads';
import type { PatternMatch, ScanCategory, ScanContext, Severity, ThreatCategory, ThreatPattern } from './threatPatterns';
import { DERIVED_PATTERNS, THREAT_PATTERNS, UNICODE_PATTERNS, scanCategoryOf } from './threatPatterns';

export interface ThreatFinding {
  /** Stable pattern id, e.g. `override-ignore-instructions`. */
  readonly id: string;
  readonly category: ThreatCategory;
  /** The report category (prompt_injection, exfiltration…) the folder scan and the CLI show. */
  readonly scanCategory: ScanCategory;
  readonly severity: Severity;
  readonly message: string;
  /** UTF-16 offset in the scanned (raw) text. */
  readonly index: number;
  /** The matched text with some context, invisible characters escaped as \u{…}: safe to display. */
  readonly excerpt: string;
}

export interface ScanResult {
  /** No finding above `low`: what the memory tool and the snapshot require. */
  readonly ok: boolean;
  readonly findings: ThreatFinding[];
}

export interface ScanOptions {
  /** Defaults to `memory`, the strictest. */
  readonly context?: ScanContext;
  /**
   * Also report `low` findings (weak signals such as sudo or `curl … | sh` from a named host).
   * Off by default: callers that refuse or strip flagged text act on the others only.
   */
  readonly includeLow?: boolean;
}

/** More findings than this say nothing new and would flood a tool result. */
export const MAX_FINDINGS = 50;
const EXCERPT_CONTEXT = 24;
const EXCERPT_MAX = 160;

const ZERO_WIDTH = /[\u200B-\u200D\u2060-\u2064]/;
const BIDI = /[\u202A-\u202E\u2066-\u2069]/;
const VARIATION = /[\uFE00-\uFE0F\u{E0100}-\u{E01EF}]/u;
const PICTOGRAPHIC = /[\p{Extended_Pictographic}\p{Emoji_Modifier}\uFE0F]/u;

/** Characters removed before pattern matching (they could split a phrase invisibly). */
const STRIP = /[\u00AD\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF\uFE00-\uFE0F\u{E0000}-\u{E007F}\u{E0100}-\u{E01EF}]/u;

/** Latin look-alikes from Cyrillic and Greek, folded so mixed-script spellings of phrases still match. */
const CONFUSABLES: Readonly<Record<string, string>> = {
  а: 'a', е: 'e', о: 'o', р: 'p', с: 'c', у: 'y', х: 'x', і: 'i', ј: 'j', ѕ: 's', ԁ: 'd', ӏ: 'l', һ: 'h', ԛ: 'q', ԝ: 'w',
  А: 'A', В: 'B', Е: 'E', К: 'K', М: 'M', Н: 'H', О: 'O', Р: 'P', С: 'C', Т: 'T', Х: 'X', І: 'I', Ј: 'J', Ѕ: 'S',
  '\u2018': "'", '\u2019': "'", '\u02BC': "'",
  ο: 'o', α: 'a', ε: 'e', ι: 'i', ν: 'v', τ: 't', κ: 'k', ρ: 'p', Ο: 'O', Α: 'A', Β: 'B', Ε: 'E', Ι: 'I', Κ: 'K', Μ: 'M', Ν: 'N', Ρ: 'P', Τ: 'T', Χ: 'X', Ζ: 'Z',
};

/** Escapes characters that would be invisible or reorder text when shown: \u{200B}, \u{202E}… */
export function escapeInvisible(text: string): string {
  return text.replace(/[\p{Cf}\p{Cc}\p{Co}\p{Zl}\p{Zp}\uFE00-\uFE0F\u{E0100}-\u{E01EF}]|\p{Cs}/gu, (ch) => {
    if (ch === '\n' || ch === '\t' || ch === '\r') return ' ';
    return `\\u{${(ch.codePointAt(0) ?? 0).toString(16).toUpperCase()}}`;
  });
}

function excerptOf(raw: string, index: number, length: number): string {
  const start = Math.max(0, index - EXCERPT_CONTEXT);
  const end = Math.min(raw.length, index + Math.min(length, EXCERPT_MAX - EXCERPT_CONTEXT * 2) + EXCERPT_CONTEXT);
  // Do not cut a surrogate pair in half.
  const from = start > 0 && /[\uDC00-\uDFFF]/.test(raw[start] ?? '') ? start - 1 : start;
  const to = end < raw.length && /[\uDC00-\uDFFF]/.test(raw[end] ?? '') ? end + 1 : end;
  const body = escapeInvisible(raw.slice(from, to)).replace(/ {2,}/g, ' ');
  return `${from > 0 ? '…' : ''}${body}${to < raw.length ? '…' : ''}`;
}

interface Normalised {
  readonly text: string;
  /** Raw offset of each normalised UTF-16 unit; absent when the text is unchanged. */
  readonly map?: Int32Array;
}

function normalise(raw: string): Normalised {
  // Fast path: plain ASCII needs no folding.
  if (!/[^\x00-\x7F]/.test(raw)) return { text: raw };
  const parts: string[] = [];
  const map: number[] = [];
  let runStart = 0;
  const flushAscii = (end: number): void => {
    if (end > runStart) parts.push(raw.slice(runStart, end));
    for (let k = runStart; k < end; k++) map.push(k);
  };
  for (let i = 0; i < raw.length; ) {
    const code = raw.charCodeAt(i);
    if (code < 0x80) {
      i++;
      continue;
    }
    flushAscii(i);
    const cp = raw.codePointAt(i) ?? code;
    const ch = String.fromCodePoint(cp);
    if (!STRIP.test(ch)) {
      const folded = CONFUSABLES[ch] ?? ch.normalize('NFKC');
      parts.push(folded);
      for (let k = 0; k < folded.length; k++) map.push(i);
    }
    i += ch.length;
    runStart = i;
  }
  flushAscii(raw.length);
  map.push(raw.length);
  return { text: parts.join(''), map: Int32Array.from(map) };
}

function rawSpan(norm: Normalised, index: number, length: number): { index: number; length: number } {
  if (!norm.map) return { index, length };
  const start = norm.map[index] ?? 0;
  const end = norm.map[Math.min(index + length, norm.map.length - 1)] ?? start;
  return { index: start, length: Math.max(1, end - start) };
}

const unicodeMeta = new Map(UNICODE_PATTERNS.map((p) => [p.id, p]));

function unicodeFinding(id: string, raw: string, index: number, length: number, context: ScanContext, detail?: string): ThreatFinding {
  const meta = unicodeMeta.get(id);
  if (!meta) throw new Error(`unknown unicode pattern ${id}`);
  return { id, category: meta.category, scanCategory: scanCategoryOf(meta.category), severity: meta.severityIn?.[context] ?? meta.severity, message: detail ? `${meta.message}: ${detail}` : meta.message, index, excerpt: excerptOf(raw, index, length) };
}

/** Invisible and bidi characters, checked on the raw text before any normalisation. */
function scanUnicode(raw: string, out: ThreatFinding[], context: ScanContext): void {
  if (!/[^\x00-\x7F]/.test(raw)) return;
  const at = (i: number): string => (i >= 0 && i < raw.length ? String.fromCodePoint(raw.codePointAt(i) ?? 0) : '');
  /** The character ending just before `i`. */
  const before = (i: number): string => (i >= 2 && /[\uDC00-\uDFFF]/.test(raw[i - 1] ?? '') ? raw.slice(i - 2, i) : raw.slice(Math.max(0, i - 1), i));
  const isTag = (c: string): boolean => (c.codePointAt(0) ?? 0) >= 0xe0000 && (c.codePointAt(0) ?? 0) <= 0xe007f;
  // Bounded per kind, not by `out`: a flood of invisible characters must not crowd out the other patterns.
  let found = 0;
  for (let i = 0; i < raw.length && found < MAX_FINDINGS; ) {
    if (raw.charCodeAt(i) < 0x80) {
      i++;
      continue;
    }
    const ch = at(i);
    const cp = ch.codePointAt(0) ?? 0;
    let end = i + ch.length;
    const runWhile = (test: (c: string) => boolean): void => {
      for (let c = at(end); c && test(c); c = at(end)) end += c.length;
    };
    let id: string | undefined;
    if (isTag(ch)) {
      id = 'unicode-tag-characters';
      runWhile(isTag);
    } else if (ZERO_WIDTH.test(ch)) {
      // A zero-width joiner between pictographs builds one emoji (a family, a technologist): ordinary text.
      const joinsEmoji = cp === 0x200d && PICTOGRAPHIC.test(before(i)) && PICTOGRAPHIC.test(at(end));
      if (!joinsEmoji) {
        id = 'unicode-zero-width';
        runWhile((c) => ZERO_WIDTH.test(c));
      }
    } else if (cp === 0xfeff && i > 0) {
      id = 'unicode-bom-inside';
    } else if (BIDI.test(ch)) {
      id = 'unicode-bidi-control';
      runWhile((c) => BIDI.test(c));
    } else if (VARIATION.test(ch)) {
      runWhile((c) => VARIATION.test(c));
      // One selector after a character picks its glyph (emoji or text style); runs carry data.
      if (Array.from(raw.slice(i, end)).length >= 3) id = 'unicode-variation-run';
    }
    if (id) {
      const runText = raw.slice(i, end);
      const chars = Array.from(runText);
      let detail: string;
      if (id === 'unicode-tag-characters') {
        const hidden = chars
          .map((c) => {
            const v = (c.codePointAt(0) ?? 0) - 0xe0000;
            return v >= 0x20 && v < 0x7f ? String.fromCharCode(v) : '';
          })
          .join('');
        detail = hidden ? `hidden text "${hidden.slice(0, 80)}${hidden.length > 80 ? '…' : ''}"` : `${chars.length} characters`;
      } else {
        const codes = Array.from(new Set(chars.map((c) => `U+${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`)));
        detail = `${chars.length} character${chars.length === 1 ? '' : 's'} (${codes.slice(0, 4).join(', ')}${codes.length > 4 ? ', …' : ''})`;
      }
      out.push(unicodeFinding(id, raw, i, runText.length, context, detail));
      found++;
    }
    i = end;
  }
}

const RANK: Readonly<Record<Severity, number>> = { low: 0, medium: 1, high: 2, critical: 3 };

/** Phrase patterns that obfuscation with digits and symbols ("1gn0re all prev10us …") aims at. */
const LEET_CATEGORIES: ReadonlySet<ThreatCategory> = new Set(['instruction_override', 'role_hijack', 'concealment', 'agent_config', 'exfiltration']);
const LEET_TOKEN = /[A-Za-z0-9@$!|]*(?:[A-Za-z][0-9@$!|]|[0-9@$!|][A-Za-z])[A-Za-z0-9@$!|]*/g;

/** Same-length copies of the text with digits and symbols inside words read as letters; none when there is nothing to fold. */
function leetVariants(text: string): string[] {
  if (!/[A-Za-z][0-9@$!|]|[0-9@$!|][A-Za-z]/.test(text)) return [];
  const fold = (one: string): string =>
    text.replace(LEET_TOKEN, (token) =>
      token.replace(/[0-9@$!|]/g, (c) => ({ '0': 'o', '1': one, '3': 'e', '4': 'a', '5': 's', '7': 't', '8': 'b', '@': 'a', $: 's', '!': 'i', '|': 'l' })[c] ?? c),
    );
  // Only worth a second pass when folding spells one of the words the phrase patterns start from.
  return Array.from(new Set([fold('i'), fold('l')])).filter((v) => v !== text && LEET_TRIGGER.test(changedWords(text, v)));
}

const LEET_TRIGGER = /\b(?:ignore|disregard|forget|bypass|override|previous|prior|instructions?|rules|system|prompt|pretend|act|jailbreak|unrestricted|approve|approvals?|confirmation|permission|admin|root|secretly|silently|conceal|hide|tell|send|post|upload|exfiltrate|conversation|history|secrets?|keys?|tokens?|credentials?|passwords?|you|now|new|mode|sandbox|yolo|everything|anything)\b/i;

/** The words of `variant` that differ from `text` (both the same length), space-separated. */
function changedWords(text: string, variant: string): string {
  const words: string[] = [];
  const re = /[A-Za-z0-9@$!|]+/g;
  for (let m = re.exec(variant); m; m = re.exec(variant)) if (text.slice(m.index, m.index + m[0].length) !== m[0]) words.push(m[0]);
  return words.join(' ');
}

/** Encoded text is scanned once more after decoding; deeper nesting is reported as what it is at that level. */
const MAX_DECODE_DEPTH = 2;

interface ScanState {
  readonly context: ScanContext;
  readonly raw: string;
  readonly norm: Normalised;
  readonly findings: ThreatFinding[];
}

function severityOf(pattern: ThreatPattern, context: ScanContext, match: PatternMatch): Severity {
  return match.severity ?? match.severityIn?.[context] ?? pattern.severityIn?.[context] ?? pattern.severity;
}

function runPattern(state: ScanState, pattern: ThreatPattern, text: string, note?: string): void {
  const { norm, raw, findings, context } = state;
  // Each pattern is bounded on its own so that no pattern's flood hides another's match.
  let found = 0;
  try {
    for (const match of pattern.find(text)) {
      if (found >= MAX_FINDINGS) break;
      const span = rawSpan(norm, match.index, match.length);
      if (note && findings.some((f) => f.id === pattern.id && f.index === span.index)) continue;
      const message = match.detail ? `${pattern.message} (${match.detail})` : pattern.message;
      findings.push({
        id: pattern.id,
        category: pattern.category,
        scanCategory: scanCategoryOf(pattern.category),
        severity: severityOf(pattern, context, match),
        message: note ? `${message} (${note})` : message,
        index: span.index,
        excerpt: excerptOf(raw, span.index, span.length),
      });
      found++;
    }
  } catch {
    // A pattern bug must not turn a scan into a crash; the other patterns still ran.
  }
}

const derivedMeta = new Map(DERIVED_PATTERNS.map((p) => [p.id, p]));

function scanDecoded(state: ScanState, depth: number): void {
  if (depth >= MAX_DECODE_DEPTH) return;
  const meta = derivedMeta.get('obfuscation-encoded-payload');
  if (!meta) return;
  let reported = 0;
  for (const payload of findEncodedPayloads(state.norm.text)) {
    // Only payloads that say something count toward the bound: harmless ones must not hide the next.
    if (reported >= MAX_FINDINGS) break;
    // Even a weak signal counts once encoded: nobody encodes a command they want reviewed.
    const inner = scanWith(payload.decoded, state.context, depth + 1);
    if (inner.length === 0) continue;
    const worst = inner.reduce<Severity>((w, f) => (RANK[f.severity] > RANK[w] ? f.severity : w), meta.severity);
    const ids = Array.from(new Set(inner.map((f) => f.id)));
    const span = rawSpan(state.norm, payload.index, payload.length);
    const shown = escapeInvisible(payload.decoded.slice(0, 80)).replace(/\s+/g, ' ');
    state.findings.push({
      id: meta.id,
      category: meta.category,
      scanCategory: scanCategoryOf(meta.category),
      severity: worst,
      message: `${meta.message}: ${payload.encoding} for "${shown}${payload.decoded.length > 80 ? '…' : ''}" (${ids.join(', ')})`,
      index: span.index,
      excerpt: excerptOf(state.raw, span.index, span.length),
    });
    reported++;
  }
}

function scanWith(text: string, context: ScanContext, depth: number): ThreatFinding[] {
  const raw = typeof text === 'string' ? text : String(text ?? '');
  const findings: ThreatFinding[] = [];
  scanUnicode(raw, findings, context);
  const norm = normalise(raw);
  const state: ScanState = { context, raw, norm, findings };
  const patterns = THREAT_PATTERNS.filter((p) => !p.contexts || p.contexts.includes(context));
  for (const pattern of patterns) runPattern(state, pattern, norm.text);
  const variants = leetVariants(norm.text);
  if (variants.length > 0) {
    const phrasePatterns = patterns.filter((p) => LEET_CATEGORIES.has(p.category));
    for (const variant of variants) for (const pattern of phrasePatterns) runPattern(state, pattern, variant, 'spelled with digits or symbols');
  }
  scanDecoded(state, depth);
  return findings;
}

/**
 * Scans `text` and reports at most MAX_FINDINGS findings in text order: all but `low` ones unless
 * `includeLow`. When there are more, the most severe are kept (then the earliest), so a flood of
 * weak findings never hides a strong one. `ok` is true when no finding at all is above `low`.
 * Never throws: a pattern that fails is skipped.
 */
export function scanText(text: string, options: ScanOptions = {}): ScanResult {
  const all = scanWith(text, options.context ?? 'memory', 0);
  const shown = options.includeLow ? all : all.filter((f) => f.severity !== 'low');
  shown.sort((a, b) => RANK[b.severity] - RANK[a.severity] || a.index - b.index || a.id.localeCompare(b.id));
  const findings = shown.slice(0, MAX_FINDINGS);
  findings.sort((a, b) => a.index - b.index || a.id.localeCompare(b.id));
  return { ok: all.every((f) => f.severity === 'low'), findings };
}

/** The distinct pattern ids of a result, in first-seen order: what errors and notices quote. */
export function findingIds(result: ScanResult): string[] {
  return Array.from(new Set(result.findings.map((f) => f.id)));
}
