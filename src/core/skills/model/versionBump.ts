import * as semver from 'semver';

const VERSION_LINE = /^(version:[ \t]*)(["']?)([^"'\s#]+)\2([ \t]*(?:#.*)?)$/;

function frontmatterVersion(lines: readonly string[]): { line: number; match: RegExpExecArray } | undefined {
  if ((lines[0] ?? '').replace(/^\uFEFF/, '').trim() !== '---') return undefined;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (line.trim() === '---') return undefined;
    const match = VERSION_LINE.exec(line);
    if (match) return { line: i, match };
  }
  return undefined;
}

/**
 * After an edit of a skill that has a semver `version`, the text with the patch number raised —
 * unless the edit changed the version itself (then the author chose). Undefined when nothing is
 * bumped: no version, not semver, or already changed.
 */
export function bumpPatchVersion(before: string, after: string): { text: string; from: string; to: string } | undefined {
  const old = frontmatterVersion(before.split(/\r?\n/));
  const eol = after.includes('\r\n') ? '\r\n' : '\n';
  const lines = after.split(/\r?\n/);
  const now = frontmatterVersion(lines);
  if (!old || !now) return undefined;
  const from = old.match[3] ?? '';
  if ((now.match[3] ?? '') !== from || semver.valid(from) === null) return undefined;
  const to = semver.inc(from, 'patch');
  if (to === null) return undefined;
  const [, key = 'version: ', quote = ''] = now.match;
  lines[now.line] = `${key}${quote}${to}${quote}${now.match[4] ?? ''}`;
  return { text: lines.join(eol), from, to };
}
