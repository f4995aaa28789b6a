import type { ProcessPort } from './processPort';
import type { TextMatch, TextSearchOutcome, TextSearchPort, TextSearchQuery } from './textSearch';
import { belowStart, MAX_SEARCHED_FILE_BYTES, previewLine } from './textSearch';

/**
 * Text search through a ripgrep binary (VS Code ships one; the host passes its path). Flags make
 * ripgrep read only what JsTextSearch reads: `.gitignore` files inside the folder even outside a
 * git repository, hidden files, no `.ignore`, global or `.git/info/exclude` rules, no config file,
 * and CRLF as a line end (so `$` matches before `\r\n`, as in JavaScript on split lines).
 * What ripgrep cannot be told exactly is filtered afterwards with the same IgnoreRules: rules of
 * folders above a searched subfolder, the host's exclude globs, include globs with a `/`.
 * Patterns ripgrep's regex engine does not support (look-around, backreferences) and a missing
 * binary go to the fallback search when one is given.
 */
export class RipgrepSearch implements TextSearchPort {
  constructor(
    private readonly rgPath: string,
    private readonly process: ProcessPort,
    private readonly fallback?: TextSearchPort,
  ) {}

  private args(query: TextSearchQuery): string[] {
    const args = [
      '--json', '--no-config', '--no-messages', '--hidden', '--no-require-git', '--no-ignore-parent',
      '--no-ignore-dot', '--no-ignore-global', '--no-ignore-exclude', '--crlf',
      '--max-filesize', String(MAX_SEARCHED_FILE_BYTES), '--sort', 'path', '--glob', '!.git',
      query.caseSensitive ? '--case-sensitive' : '--ignore-case',
    ];
    if (!query.regex) args.push('--fixed-strings');
    // Exclude globs for any depth prune the same way in ripgrep; the rest are filtered afterwards.
    for (const glob of query.rules.excludeGlobs) if (/^\*\*\/[\w.*/-]+$/.test(glob)) args.push('--glob', `!${glob}`);
    // A glob without `/` means the same to ripgrep (any depth) and prunes early; others are checked after.
    if (query.includeGlob && !query.startIsFile && !query.includeGlob.includes('/')) args.push('--glob', query.includeGlob);
    args.push('--regexp', query.pattern, '--', query.start === '' ? '.' : query.start);
    return args;
  }

  async search(query: TextSearchQuery): Promise<TextSearchOutcome> {
    const matches: TextMatch[] = [];
    let truncated = false;
    // Rules of the folders above the start; in-tree .gitignore files are ripgrep's to apply.
    await query.rules.isIgnored(query.start, !query.startIsFile);
    const run = await this.process.runLines({
      file: this.rgPath,
      args: this.args(query),
      cwd: query.rules.root,
      ...(query.signal ? { signal: query.signal } : {}),
      onLine: (line) => {
        const match = parseMatch(line);
        if (!match) return true;
        if (!query.startIsFile) {
          if (query.rules.ignoredByLoaded(match.path, false)) return true;
          if (query.include && !query.include(belowStart(match.path, query.start))) return true;
        }
        if (matches.length >= query.maxResults) {
          truncated = true;
          return false;
        }
        matches.push(match);
        return true;
      },
    });
    if (query.signal?.aborted) return { ok: false, error: 'the search was stopped' };
    if (run.spawnError) {
      if (this.fallback) return this.fallback.search(query);
      return { ok: false, error: `ripgrep could not be started (${run.spawnError.message}); text search is unavailable` };
    }
    if (run.exitCode === 2 && !run.stopped) {
      const unsupported = /look-?around|backreference|not supported/i.test(run.stderr);
      if (unsupported && this.fallback) {
        const result = await this.fallback.search(query);
        return result.ok ? { ...result, note: 'ripgrep does not support this regular expression; JavaScript regex rules were used' } : result;
      }
      const detail = run.stderr.replace(/\s+/g, ' ').trim().slice(0, 400);
      if (/regex parse error|error parsing/i.test(run.stderr)) {
        return { ok: false, error: `invalid regular expression ${JSON.stringify(query.pattern)}: ${detail}; fix it, or set regex to false to search for the text literally` };
      }
      // Unreadable files alone also end in exit code 2, with their messages silenced.
      if (matches.length === 0 && detail !== '') return { ok: false, error: `ripgrep failed: ${detail}` };
    }
    return { ok: true, matches, truncated, engine: 'ripgrep' };
  }
}

interface RgText {
  readonly text?: string;
  readonly bytes?: string;
}

const bytesOf = (value: RgText | undefined): Buffer | undefined =>
  value?.text !== undefined ? Buffer.from(value.text, 'utf8') : value?.bytes !== undefined ? Buffer.from(value.bytes, 'base64') : undefined;

/** One `match` record of `rg --json`, as a TextMatch; anything else is undefined. */
export function parseMatch(line: string): TextMatch | undefined {
  if (!line.startsWith('{"type":"match"')) return undefined;
  let record: { data?: { path?: RgText; lines?: RgText; line_number?: number; submatches?: { start?: number }[] } };
  try {
    record = JSON.parse(line);
  } catch {
    return undefined;
  }
  const data = record.data;
  const rawPath = bytesOf(data?.path)?.toString('utf8');
  const rawLine = bytesOf(data?.lines);
  if (rawPath === undefined || rawLine === undefined || typeof data?.line_number !== 'number') return undefined;
  const relative = (process.platform === 'win32' ? rawPath.replace(/\\/g, '/') : rawPath).replace(/^(\.\/)+/, '');
  const text = rawLine.toString('utf8').replace(/\r?\n$/, '');
  // Submatch offsets count bytes of the raw line; columns count UTF-16 units of the decoded text,
  // like JavaScript's (invalid bytes become one U+FFFD each in both decoders).
  const column = rawLine.subarray(0, data.submatches?.[0]?.start ?? 0).toString('utf8').length + 1;
  return { path: relative, line: data.line_number, column, text: previewLine(text, column) };
}
