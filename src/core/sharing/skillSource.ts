/**
 * Where skills are imported from: what a person typed (`skillwright add <source>`, Import Skills…)
 * turned into a folder, a zip file or a git repository. The forms and the lock's `source` and
 * `sourceType` values follow the ecosystem's `skills` tool, so a lock either tool writes restores
 * in the other.
 */
import * as path from 'node:path';

export interface SkillSource {
  readonly kind: 'folder' | 'zip' | 'git';
  /** The lock's sourceType: 'local' | 'zip' | 'git' | 'github' | 'gitlab'. */
  readonly sourceType: string;
  /** The lock's "source": owner/repo, a git URL, or a path (relative to the cwd given to the parser). */
  readonly source: string;
  /** What git clones. */
  readonly url?: string;
  /** Branch, tag or commit. */
  readonly ref?: string;
  /** Folder inside the source to look in, `/`-separated. */
  readonly subpath?: string;
  /** Absolute path, for folder and zip. */
  readonly path?: string;
}

export const ACCEPTED_SOURCES =
  'a folder (./skills, /abs/path), a .zip file, a git URL (https://…, git@host:owner/repo.git, ssh://…, file://…; add #ref or --ref for a branch, tag or commit) or owner/repo[/path] for GitHub';

const NAME_PART = /^[A-Za-z0-9_.-]+$/;
const OWNER = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

function isLocalPath(input: string): boolean {
  return path.isAbsolute(input) || input === '.' || input === '..' || /^\.\.?[/\\]/.test(input) || /^[A-Za-z]:[/\\]/.test(input);
}

/** `..` in a folder inside a source would step out of the clone. */
function subpathProblem(subpath: string): string | undefined {
  const segments = subpath.replace(/\\/g, '/').split('/');
  if (segments.some((segment) => segment === '..')) return `the folder "${subpath}" inside the source must not contain ".."`;
  if (subpath.startsWith('/') || /^[A-Za-z]:/.test(subpath)) return `the folder "${subpath}" inside the source must be relative`;
  return undefined;
}

function cleanSubpath(subpath: string | undefined): string | undefined {
  const cleaned = subpath?.replace(/\\/g, '/').replace(/^\/+|\/+$/g, '').replace(/\/+/g, '/');
  return cleaned ? cleaned : undefined;
}

/** `./x`, `../x` or `.`, as the other tool writes local sources; absolute when on another drive. */
export function portablePath(from: string, to: string): string {
  const relative = path.relative(from, to);
  if (path.isAbsolute(relative)) return to.split(path.sep).join('/');
  const portable = relative.split(path.sep).join('/');
  if (!portable) return '.';
  return portable === '..' || portable.startsWith('../') ? portable : `./${portable}`;
}

/** A ref git could read as an option, or one no branch, tag or commit can have. */
function badRef(ref: string): boolean {
  return ref.startsWith('-') || /[\s\0~^:?*[\\]/.test(ref);
}

function splitFragment(input: string): { rest: string; ref?: string } {
  const hash = input.indexOf('#');
  if (hash < 0) return { rest: input };
  const fragment = input.slice(hash + 1);
  let ref = fragment;
  try {
    ref = decodeURIComponent(fragment);
  } catch {
    // A stray % stays as typed.
  }
  return { rest: input.slice(0, hash), ref: ref || undefined };
}

function gitSource(url: string, ref: string | undefined, subpath?: string): SkillSource | { error: string } {
  let parsed: URL | undefined;
  if (/^(https?|ssh|file|git):\/\//i.test(url)) {
    try {
      parsed = new URL(url);
    } catch {
      return { error: `"${url}" is not a valid URL. Use ${ACCEPTED_SOURCES}` };
    }
    // The URL goes into the lock, which is committed: a token in it would be shared with everyone.
    if (parsed.password || (parsed.username && parsed.protocol.startsWith('http'))) {
      return { error: `"${parsed.protocol}//${parsed.host}${parsed.pathname}" carries a user name or password; remove it and let git's credential helper supply them` };
    }
  }
  const sub = cleanSubpath(subpath);
  if (sub) {
    const problem = subpathProblem(sub);
    if (problem) return { error: problem };
  }
  const base = { kind: 'git' as const, ...(ref ? { ref } : {}), ...(sub ? { subpath: sub } : {}) };
  if (parsed && /^https?:$/.test(parsed.protocol) && parsed.hostname === 'github.com') {
    const match = /^\/([^/]+)\/([^/]+?)(?:\.git)?(?:\/tree\/([^/]+)(?:\/(.+))?)?\/?$/.exec(parsed.pathname);
    if (!match?.[1] || !match[2]) return { error: `"${url}" does not name a GitHub repository (https://github.com/owner/repo)` };
    const [, owner, repo, treeRef, treePath] = match;
    const treeSub = cleanSubpath(treePath);
    if (treeSub) {
      const problem = subpathProblem(treeSub);
      if (problem) return { error: problem };
    }
    return {
      ...base,
      sourceType: 'github',
      source: `${owner}/${repo}`,
      url: `https://github.com/${owner}/${repo}.git`,
      ...(treeRef || ref ? { ref: treeRef ?? ref } : {}),
      ...(treeSub || sub ? { subpath: treeSub ?? sub } : {}),
    };
  }
  if (parsed && /^https?:$/.test(parsed.protocol) && parsed.hostname === 'gitlab.com') {
    const clean = `https://gitlab.com${parsed.pathname.replace(/\/+$/, '').replace(/\.git$/, '')}.git`;
    return { ...base, sourceType: 'gitlab', source: clean, url: clean };
  }
  return { ...base, sourceType: 'git', source: url, url };
}

/**
 * Parses a source as typed. `options.ref` (the `--ref` flag) and a `#ref` suffix may not disagree.
 * Local paths resolve against `options.cwd`; anything unrecognised is refused with the accepted forms.
 */
export function parseSkillSource(input: string, options: { readonly cwd: string; readonly ref?: string }): SkillSource | { readonly error: string } {
  const trimmed = input.trim();
  if (trimmed === '') return { error: `no source given. Use ${ACCEPTED_SOURCES}` };
  if (/[\0\r\n]/.test(trimmed)) return { error: 'the source contains control characters' };
  if (/^ext::/i.test(trimmed) || /^[a-z][a-z0-9+.-]*::/i.test(trimmed)) return { error: `git transports such as "ext::" run programs and are refused. Use ${ACCEPTED_SOURCES}` };
  const ref = options.ref?.trim() || undefined;
  if (ref !== undefined && badRef(ref)) return { error: `"${ref}" is not a branch, tag or commit name` };

  if (isLocalPath(trimmed)) {
    if (ref) return { error: `--ref applies to git sources; "${trimmed}" is a local path` };
    const absolute = path.resolve(options.cwd, trimmed);
    const kind = /\.zip$/i.test(absolute) ? 'zip' : 'folder';
    return { kind, sourceType: kind === 'zip' ? 'zip' : 'local', source: portablePath(options.cwd, absolute), path: absolute };
  }
  if (/\.zip$/i.test(trimmed) && !trimmed.includes(':')) {
    const absolute = path.resolve(options.cwd, trimmed);
    return { kind: 'zip', sourceType: 'zip', source: portablePath(options.cwd, absolute), path: absolute };
  }

  const { rest, ref: fragmentRef } = splitFragment(trimmed);
  if (fragmentRef && ref && fragmentRef !== ref) return { error: `the source says #${fragmentRef} and --ref says ${ref}; give one` };
  const wanted = ref ?? fragmentRef;
  if (wanted !== undefined && badRef(wanted)) return { error: `"${wanted}" is not a branch, tag or commit name` };

  const prefixed = /^(github|gitlab):(.+)$/.exec(rest);
  if (prefixed?.[1] === 'gitlab' && prefixed[2]) return gitSource(`https://gitlab.com/${prefixed[2]}`, wanted);
  const body = prefixed?.[1] === 'github' && prefixed[2] ? prefixed[2] : rest;

  if (/^(https?|ssh|file):\/\//i.test(body)) return gitSource(body, wanted);
  if (/^git:\/\//i.test(body)) return { error: `the unencrypted git:// protocol is refused; use the https:// URL of "${body}"` };
  if (/^[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:[^/\\].*$/.test(body)) return gitSource(body, wanted);

  const shorthand = /^([^/:]+)\/([^/:]+?)(?:\.git)?(?:\/(.+?))?\/?$/.exec(body);
  if (shorthand?.[1] && shorthand[2] && OWNER.test(shorthand[1]) && NAME_PART.test(shorthand[2]) && !/^\.+$/.test(shorthand[2])) {
    return gitSource(`https://github.com/${shorthand[1]}/${shorthand[2]}`, wanted, shorthand[3]);
  }
  if (!body.includes('/') && !body.includes(':')) {
    return { error: `"${trimmed}" is neither a path nor a repository. For a folder here write ./${trimmed}; for GitHub write owner/repo. Accepted: ${ACCEPTED_SOURCES}` };
  }
  return { error: `"${trimmed}" is not a source Skillwright can import. Use ${ACCEPTED_SOURCES}` };
}

/** The source a lock entry names, for restore and updates (local paths resolve against the project). */
export function sourceFromLockEntry(
  entry: { readonly source: string; readonly sourceType: string; readonly ref?: string; readonly sourceUrl?: string },
  projectRoot: string,
): SkillSource | { readonly error: string } {
  // A committed lock is input from others: its ref reaches git's command line.
  if (entry.ref !== undefined && entry.ref !== '' && badRef(entry.ref)) {
    return { error: `its ref "${entry.ref}" is not a branch, tag or commit name; fix "ref" in skills-lock.json or re-add the skill` };
  }
  const ref = entry.ref ? { ref: entry.ref } : {};
  switch (entry.sourceType) {
    case 'local':
    case 'zip': {
      if (path.isAbsolute(entry.source) || /^[A-Za-z]:/.test(entry.source) || entry.source.startsWith('\\\\')) {
        return { error: `its source "${entry.source}" is an absolute path; a shared lock may only name folders inside the project. Re-add the skill from a folder in the project` };
      }
      const absolute = path.resolve(projectRoot, entry.source);
      const relative = path.relative(projectRoot, absolute);
      if (relative.startsWith('..') || path.isAbsolute(relative)) {
        return { error: `its source "${entry.source}" is outside the project; restore it by hand or re-add it from a folder in the project` };
      }
      return { kind: entry.sourceType === 'zip' ? 'zip' : 'folder', sourceType: entry.sourceType, source: entry.source, path: absolute };
    }
    case 'github': {
      const [owner, repo, extra] = entry.source.split('/');
      if (!owner || !repo || extra !== undefined || !OWNER.test(owner) || !NAME_PART.test(repo) || /^\.+$/.test(repo)) return { error: `its source "${entry.source}" is not owner/repo` };
      return { kind: 'git', sourceType: 'github', source: entry.source, url: entry.sourceUrl && /^https:\/\//.test(entry.sourceUrl) ? entry.sourceUrl : `https://github.com/${entry.source}.git`, ...ref };
    }
    case 'git':
    case 'gitlab': {
      const url = entry.sourceUrl ?? entry.source;
      // A file:// repository outside the project is allowed (a team mirror on a shared disk): git
      // only reads it, and what it yields is quarantined and scanned like any other source.
      const parsed = parseSkillSource(url, { cwd: projectRoot, ...ref });
      if ('error' in parsed) return { error: `its source: ${parsed.error}` };
      if (parsed.kind !== 'git') return { error: `its source "${url}" is not a git URL` };
      return { kind: 'git', sourceType: entry.sourceType, source: entry.source, url: parsed.url ?? url, ...ref };
    }
    default:
      return { error: `sourceType "${entry.sourceType}" is not one Skillwright fetches (local, zip, git, github, gitlab); restore it with the tool that wrote it` };
  }
}
