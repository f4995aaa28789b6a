import * as assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/**
 * The path attack corpus and the sandbox it runs in: a temp folder with a root the tools may use
 * and, beside it, an `outside` folder holding a canary file. After each attack the whole temp
 * folder outside the root must be byte for byte what it was, and no result may carry the canary.
 */

/** How a corpus path must fare: `escape` always names something outside the root and must be refused. */
export type AttackExpectation = 'escape' | 'contained';

export interface PathAttack {
  readonly label: string;
  readonly path: string;
  readonly expect: AttackExpectation;
}

export interface Sandbox {
  readonly tmp: string;
  /** The root the tools are confined to (a workspace folder, a skill folder, a project). */
  readonly root: string;
  readonly outside: string;
  readonly secretFile: string;
  /** A random marker in every outside file: any result that contains it leaked outside content. */
  readonly canary: string;
  /** Throws when anything outside `root` (and outside the `keep` folders) was created, changed or removed since the sandbox was made. */
  assertOutsideUntouched(context: string): void;
  /** Throws when `value` (any tool result) carries outside content. */
  assertNoLeak(value: unknown, context: string): void;
  cleanup(): void;
}

/** `relative path → sha256 of content or link target` for everything under `dir`, skipping `skip` (absolute). */
function fingerprint(dir: string, skip: readonly string[]): Map<string, string> {
  const found = new Map<string, string>();
  const walk = (current: string): void => {
    for (const entry of fs.readdirSync(current, { withFileTypes: true })) {
      const full = path.join(current, entry.name);
      if (skip.includes(full)) continue;
      const relative = path.relative(dir, full);
      if (entry.isSymbolicLink()) found.set(relative, `link:${fs.readlinkSync(full)}`);
      else if (entry.isDirectory()) {
        found.set(relative, 'dir');
        walk(full);
      } else found.set(relative, createHash('sha256').update(fs.readFileSync(full)).digest('hex'));
    }
  };
  walk(dir);
  return found;
}

function describeDifference(before: Map<string, string>, after: Map<string, string>): string[] {
  const changes: string[] = [];
  for (const [name, value] of after) if (before.get(name) !== value) changes.push(before.has(name) ? `changed ${name}` : `created ${name}`);
  for (const name of before.keys()) if (!after.has(name)) changes.push(`removed ${name}`);
  return changes;
}

/**
 * Makes the sandbox. `rootRelative` is where the confined root lies inside the temp folder (it may
 * be nested, e.g. `app/.agents/skills/demo`); `setup` fills the root before the fingerprint is taken.
 */
export function makeSandbox(rootRelative: string, setup: (sandbox: { root: string; outside: string; tmp: string }) => void = () => undefined): Sandbox {
  const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'sw-attack-')));
  const root = path.join(tmp, ...rootRelative.split('/'));
  const outside = path.join(tmp, 'outside');
  fs.mkdirSync(root, { recursive: true });
  fs.mkdirSync(path.join(outside, 'nested'), { recursive: true });
  const canary = `CANARY-${randomBytes(6).toString('hex')}`;
  const secretFile = path.join(outside, 'secret.txt');
  fs.writeFileSync(secretFile, `top secret ${canary}\nsecond line ${canary}\n`);
  fs.writeFileSync(path.join(outside, 'nested', 'deep.md'), `# deep ${canary}\n`);
  fs.writeFileSync(path.join(outside, 'SKILL.md'), `---\nname: outside\ndescription: outside ${canary}\n---\n`);
  setup({ root, outside, tmp });
  // The root's own ancestors inside tmp (e.g. `app` when the root is `app/.agents/skills/demo`) are
  // watched too, except the root itself.
  const before = fingerprint(tmp, [root]);
  return {
    tmp,
    root,
    outside,
    secretFile,
    canary,
    assertOutsideUntouched(context) {
      const changes = describeDifference(before, fingerprint(tmp, [root]));
      assert.deepEqual(changes, [], `${context}: outside the root: ${changes.join(', ')}`);
    },
    assertNoLeak(value, context) {
      const text = String(JSON.stringify(value));
      assert.ok(!text.includes(canary), `${context}: the result carries outside content: ${text.slice(0, 400)}`);
    },
    cleanup: () => fs.rmSync(tmp, { recursive: true, force: true }),
  };
}

/** Links inside `dir` that lead out of it or loop: file, folder, a loop of two, a link to itself. */
export function plantLinks(dir: string, outside: string, secretFile: string): void {
  fs.mkdirSync(dir, { recursive: true });
  fs.symlinkSync(secretFile, path.join(dir, 'out-file'));
  fs.symlinkSync(outside, path.join(dir, 'out-dir'), 'dir');
  fs.symlinkSync(path.relative(dir, outside), path.join(dir, 'out-rel'), 'dir');
  fs.symlinkSync('loop-b', path.join(dir, 'loop-a'));
  fs.symlinkSync('loop-a', path.join(dir, 'loop-b'));
  fs.symlinkSync('self-loop', path.join(dir, 'self-loop'));
  fs.symlinkSync(path.join(outside, 'missing-target'), path.join(dir, 'dangling'));
}

/**
 * The corpus, for a tool whose paths are relative to the root and whose root sits `depth` folders
 * below the temp folder (so enough `..` reach `outside`). `prefix` goes before every relative path
 * (e.g. `references/` for a skill's support files), so a tool's own layout rules do not refuse the
 * path before its containment rules are reached.
 */
export function pathCorpus(options: { readonly outside: string; readonly depth: number; readonly prefix?: string }): PathAttack[] {
  const { outside } = options;
  const p = options.prefix ?? '';
  const up = '../'.repeat(options.depth + (p ? p.split('/').filter(Boolean).length : 0));
  const upBack = up.replace(/\//g, '\\');
  const escape = (label: string, value: string): PathAttack => ({ label, path: value, expect: 'escape' });
  const contained = (label: string, value: string): PathAttack => ({ label, path: value, expect: 'contained' });
  return [
    escape('dot-dot to the outside file', `${p}${up}outside/secret.txt`),
    escape('dot-dot after a real folder', `${p}sub/../${up}outside/secret.txt`),
    escape('dot-dot with ./ noise', `${p}./.././${up}outside/secret.txt`),
    escape('dot-dot to a new outside file', `${p}${up}outside/new.txt`),
    escape('dot-dot beyond the file system root', `${p}${'../'.repeat(64)}etc/passwd`),
    escape('absolute path of the outside file', path.join(outside, 'secret.txt')),
    escape('absolute path of a new outside file', path.join(outside, 'created.txt')),
    escape('absolute system file', '/etc/passwd'),
    escape('absolute with dot-dot back out', `${outside}/../outside/secret.txt`),
    escape('UNC-looking absolute (//server/share)', '//server/share/secret.txt'),
    escape('file URL of the outside file', `file://${path.join(outside, 'secret.txt')}`),
    escape('file URL with encoded dot-dot', `file://%2e%2e/${up}outside/secret.txt`),
    escape('home folder', '~/.ssh/id_rsa'),
    escape('link to an outside file', `${p}out-file`),
    escape('link to an outside folder', `${p}out-dir`),
    escape('file through a folder link', `${p}out-dir/secret.txt`),
    escape('new file through a folder link', `${p}out-dir/new.txt`),
    escape('new folder through a folder link', `${p}out-dir/made/new.txt`),
    escape('file through a relative folder link', `${p}out-rel/nested/deep.md`),
    escape('dangling link to outside', `${p}dangling`),
    escape('link loop', `${p}loop-a`),
    escape('through a link loop', `${p}loop-a/x.txt`),
    escape('self link', `${p}self-loop`),
    escape('NUL byte', `${p}ok.md\u0000${up}outside/secret.txt`),
    escape('NUL byte alone', `${p}a\u0000b.md`),
    escape('control character', `${p}a\u0007b.md`),
    escape('segment over 255 bytes', `${p}${'a'.repeat(300)}.md`),
    escape('segment over 255 bytes in multibyte characters', `${p}${'é'.repeat(200)}.md`),
    escape('path over 4096 bytes', `${p}${`${'d'.repeat(100)}/`.repeat(42)}x.md`),
    escape('path under 4096 characters, over 4096 bytes with the root', `${p}${`${'d'.repeat(100)}/`.repeat(40)}${'x'.repeat(50)}`),
    contained('URL-encoded dot-dot (a literal name)', `${p}%2e%2e%2foutside%2fsecret.txt`),
    contained('backslash dot-dot (a literal name on POSIX)', `${p}${upBack}outside\\secret.txt`),
    contained('mixed separators', `${p}sub\\..\\..\\${up}outside/secret.txt`),
    contained('drive letter with backslash', `${p}C:\\x.md`),
    contained('drive-relative', `${p}C:x.md`),
    contained('UNC with backslashes', `${p}\\\\server\\share\\x.md`),
    contained('reserved device name', `${p}CON`),
    contained('reserved device name NUL', `${p}NUL`),
    contained('reserved name with extension', `${p}aux.txt`),
    contained('trailing dot', `${p}trail.`),
    contained('trailing space', `${p}trail `),
  ];
}
