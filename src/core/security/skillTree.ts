/**
 * Reads a skill folder for the scanner without ever following a symlink or reading anything that
 * is not a regular file (a FIFO would block forever), and the structural checks over what it read:
 * file count and sizes, binaries, symlinks, executables outside scripts/, invisible file names.
 */
import * as nodeFs from 'node:fs/promises';
import * as path from 'node:path';
import type { FileSystemPort } from '../base/fileSystemPort';
import type { ScannedFile, SkillScanFinding } from './skillScanFinding';

/** What the structural checks allow (docs/threat-patterns.md). */
export const STRUCTURE_LIMITS = {
  maxFiles: 50,
  maxFileBytes: 256 * 1024,
  maxTotalBytes: 1024 * 1024,
} as const;

/** Past these the walk stops: a scan must end on any folder, however large or deep. */
const WALK_MAX_ENTRIES = 2000;
const WALK_MAX_DEPTH = 24;
/** Files larger than this are hashed by size only and not read. */
const READ_MAX_BYTES = 32 * 1024 * 1024;
/** Only this much of a text file goes through the patterns (the large-file check covers the rest). */
const SCAN_MAX_CHARS = STRUCTURE_LIMITS.maxFileBytes;

export interface TreeEntry {
  readonly path: string;
  readonly kind: ScannedFile['kind'];
  readonly size: number;
  readonly bytes?: Uint8Array;
  /** Decoded text of a text file (also of a text executable), cut to what the patterns scan. */
  readonly text?: string;
  /** For a symlink: where it resolves, relative to the skill when inside, absolute when not. */
  readonly linkTarget?: string;
  readonly escapes?: boolean;
  readonly broken?: boolean;
  readonly binaryClass?: 'native' | 'archive' | 'other';
  readonly execBit?: boolean;
  readonly shebang?: boolean;
}

export interface SkillTree {
  readonly entries: readonly TreeEntry[];
  /** Problems met while reading (unreadable folders and files, a walk cut short). */
  readonly findings: readonly SkillScanFinding[];
}

type ModeOf = (absolutePath: string) => Promise<number | undefined>;

async function defaultModeOf(fs: FileSystemPort, absolutePath: string): Promise<number | undefined> {
  const fromPort = (await fs.lstat(absolutePath).catch(() => undefined)) as { mode?: unknown } | undefined;
  if (typeof fromPort?.mode === 'number') return fromPort.mode;
  try {
    return (await nodeFs.lstat(absolutePath)).mode;
  } catch {
    // Not on the local disk (a virtual port): the shebang check still applies.
    return undefined;
  }
}

function isInside(root: string, target: string): boolean {
  const rel = path.relative(root, target);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

const NATIVE_MAGIC: readonly number[][] = [
  [0x7f, 0x45, 0x4c, 0x46], // ELF
  [0x4d, 0x5a], // PE (MZ)
  [0xcf, 0xfa, 0xed, 0xfe], // Mach-O 64
  [0xce, 0xfa, 0xed, 0xfe], // Mach-O 32
  [0xca, 0xfe, 0xba, 0xbe], // Mach-O fat / Java class
];
const ARCHIVE_MAGIC: readonly number[][] = [
  [0x50, 0x4b, 0x03, 0x04], // zip, jar, docx…
  [0x1f, 0x8b], // gzip
  [0x37, 0x7a, 0xbc, 0xaf], // 7z
  [0x52, 0x61, 0x72, 0x21], // rar
];

function startsWith(bytes: Uint8Array, magic: readonly number[]): boolean {
  return magic.every((b, i) => bytes[i] === b);
}

/** Formats whose files can pass for text at a glance but are data (when they are not UTF-8). */
const DATA_MAGIC: readonly number[][] = [
  [0x89, 0x50, 0x4e, 0x47], // PNG
  [0xff, 0xd8, 0xff], // JPEG
  [0x47, 0x49, 0x46, 0x38], // GIF
  [0x25, 0x50, 0x44, 0x46], // PDF
];

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The text of a file, or undefined when it is binary. Binary means a NUL byte in the first 8 KB
 * (after a UTF-16 byte-order mark is honoured) or a known binary format that is not UTF-8. Any
 * other file is text: invalid bytes become U+FFFD, so one stray byte cannot hide a script from the
 * patterns.
 */
function decodeText(bytes: Uint8Array): string | undefined {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le').decode(bytes);
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be').decode(bytes);
  if (bytes.subarray(0, 8192).includes(0)) return undefined;
  try {
    return strictUtf8.decode(bytes);
  } catch {
    if ([...NATIVE_MAGIC, ...ARCHIVE_MAGIC, ...DATA_MAGIC].some((m) => startsWith(bytes, m))) return undefined;
    return new TextDecoder('utf-8').decode(bytes);
  }
}

function binaryClassOf(bytes: Uint8Array): TreeEntry['binaryClass'] {
  if (NATIVE_MAGIC.some((m) => startsWith(bytes, m))) return 'native';
  if (ARCHIVE_MAGIC.some((m) => startsWith(bytes, m))) return 'archive';
  return 'other';
}

function finding(id: string, severity: SkillScanFinding['severity'], message: string, file?: string): SkillScanFinding {
  return { id, category: 'structure', severity, message, ...(file !== undefined ? { file } : {}) };
}

async function readFileEntry(fs: FileSystemPort, abs: string, rel: string, modeOf: ModeOf, findings: SkillScanFinding[]): Promise<TreeEntry> {
  const stat = await fs.lstat(abs).catch(() => undefined);
  const size = stat?.size ?? 0;
  const mode = await modeOf(abs).catch(() => undefined);
  const execBit = mode !== undefined && (mode & 0o111) !== 0;
  if (size > READ_MAX_BYTES) {
    findings.push(finding('structure-not-fully-scanned', 'high', `is ${kb(size)} (more than ${kb(READ_MAX_BYTES)}), so it was not read or scanned at all; split the file or review it by hand`, rel));
    return { path: rel, kind: execBit ? 'executable' : 'binary', size, execBit, binaryClass: 'other' };
  }
  let bytes: Uint8Array;
  try {
    bytes = await fs.readFile(abs);
  } catch (error) {
    findings.push(finding('structure-unreadable', 'medium', `could not be read (${error instanceof Error ? error.message : String(error)}), so it was not scanned`, rel));
    return { path: rel, kind: 'binary', size };
  }
  const text = decodeText(bytes);
  if (text === undefined) {
    return { path: rel, kind: execBit ? 'executable' : 'binary', size: bytes.length, bytes, execBit, binaryClass: binaryClassOf(bytes) };
  }
  const shebang = text.startsWith('#!');
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (body.length > SCAN_MAX_CHARS) {
    // The verdict must not read safe over text nobody scanned.
    findings.push(finding('structure-not-fully-scanned', 'high', `holds ${body.length.toLocaleString('en-US')} characters; only the first ${SCAN_MAX_CHARS.toLocaleString('en-US')} characters were scanned; split the file or review it by hand`, rel));
  }
  return { path: rel, kind: shebang || execBit ? 'executable' : 'text', size: bytes.length, bytes, text: body.slice(0, SCAN_MAX_CHARS), execBit, shebang };
}

/** Every entry of the folder, in path order. Never throws for what is inside the folder. */
export async function readSkillTree(fs: FileSystemPort, dir: string, modeOf?: ModeOf): Promise<SkillTree> {
  const mode: ModeOf = modeOf ?? ((p) => defaultModeOf(fs, p));
  const root = await fs.realPath(dir).catch(() => path.resolve(dir));
  const entries: TreeEntry[] = [];
  const findings: SkillScanFinding[] = [];
  const queue: { abs: string; rel: string; depth: number }[] = [{ abs: dir, rel: '', depth: 0 }];
  let seen = 0;
  while (queue.length > 0) {
    const folder = queue.shift();
    if (!folder) break;
    let listing;
    try {
      listing = await fs.readDirectory(folder.abs);
    } catch (error) {
      findings.push(finding('structure-unreadable', 'medium', `the folder could not be listed (${error instanceof Error ? error.message : String(error)}), so its files were not scanned`, folder.rel || '.'));
      continue;
    }
    for (const item of [...listing].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const rel = folder.rel ? `${folder.rel}/${item.name}` : item.name;
      const abs = path.join(folder.abs, item.name);
      if (++seen > WALK_MAX_ENTRIES) {
        findings.push(finding('structure-walk-truncated', 'high', `the folder holds more than ${WALK_MAX_ENTRIES} entries; the scan stopped there, so the rest is unchecked`));
        return { entries, findings };
      }
      if (item.type === 'directory') {
        // Git's own metadata is not part of the skill (the lock's hash skips it too).
        if (item.name === '.git') continue;
        if (folder.depth + 1 > WALK_MAX_DEPTH) findings.push(finding('structure-walk-truncated', 'high', `folders nest more than ${WALK_MAX_DEPTH} deep; the deeper ones were not scanned`, rel));
        else queue.push({ abs, rel, depth: folder.depth + 1 });
      } else if (item.type === 'symlink') {
        const size = (await fs.lstat(abs).catch(() => undefined))?.size ?? 0;
        let target: string | undefined;
        try {
          target = await fs.realPath(abs);
        } catch {
          target = undefined;
        }
        if (target === undefined) {
          entries.push({ path: rel, kind: 'symlink', size, broken: true, linkTarget: '' });
        } else {
          const inside = isInside(root, target);
          const shown = inside ? path.relative(root, target).split(path.sep).join('/') : target;
          entries.push({ path: rel, kind: 'symlink', size, linkTarget: shown, escapes: !inside });
        }
      } else if (item.type === 'file') {
        entries.push(await readFileEntry(fs, abs, rel, mode, findings));
      } else {
        findings.push(finding('structure-special-file', 'high', 'is not a regular file, folder or symlink (a device, socket or pipe); a skill has no use for one', rel));
        entries.push({ path: rel, kind: 'binary', size: 0 });
      }
    }
  }
  entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { entries, findings };
}

const INVISIBLE_NAME = /[\p{Cc}\p{Cf}\u2028\u2029]/u;
const MEDIA_EXTENSION = /\.(?:png|jpe?g|gif|webp|bmp|ico|icns|svgz|tiff?|avif|heic|pdf|woff2?|ttf|otf|eot|mp3|wav|ogg|m4a|mp4|webm|mov|xlsx|xlsm|docx|pptx|odt|ods|odp)$/i;

function kb(bytes: number): string {
  return `${Math.round(bytes / 1024).toLocaleString('en-US')} KB`;
}

/** The structural findings of a tree. */
export function checkStructure(tree: SkillTree): SkillScanFinding[] {
  const out: SkillScanFinding[] = [];
  const files = tree.entries;
  if (files.length > STRUCTURE_LIMITS.maxFiles) {
    out.push(finding('structure-too-many-files', 'medium', `the skill holds ${files.length} files (more than ${STRUCTURE_LIMITS.maxFiles}); a skill that large is hard to review, keep only what the instructions use`));
  }
  const total = files.reduce((sum, e) => sum + e.size, 0);
  if (total > STRUCTURE_LIMITS.maxTotalBytes) {
    out.push(finding('structure-large-total', 'medium', `the skill's files add up to ${kb(total)} (more than ${kb(STRUCTURE_LIMITS.maxTotalBytes)}); large content is hard to review`));
  }
  for (const e of files) {
    if (INVISIBLE_NAME.test(e.path)) {
      out.push(finding('structure-invisible-name', 'high', `the path holds invisible or control characters (${e.path.replace(INVISIBLE_NAME, (c) => `U+${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`)}), which can disguise a file`, e.path));
    }
    if (e.size > STRUCTURE_LIMITS.maxFileBytes && e.kind !== 'symlink') {
      out.push(finding('structure-large-file', 'medium', `is ${kb(e.size)} (more than ${kb(STRUCTURE_LIMITS.maxFileBytes)}); only the first ${kb(SCAN_MAX_CHARS)} of text is scanned`, e.path));
    }
    if (e.kind === 'symlink') {
      if (e.broken) out.push(finding('structure-symlink-broken', 'medium', 'is a symlink that does not resolve (missing target or a loop)', e.path));
      else if (e.escapes) out.push(finding('structure-symlink-escape', 'critical', `is a symlink to ${e.linkTarget ?? '?'}, outside the skill: it would expose or overwrite files elsewhere`, e.path));
      else out.push(finding('structure-symlink', 'low', `is a symlink to ${e.linkTarget ?? '?'} inside the skill`, e.path));
      continue;
    }
    if (e.binaryClass === 'native') {
      out.push(finding('structure-binary-executable', 'high', 'is a compiled program (ELF, PE or Mach-O); nobody can review what it does from its source', e.path));
    } else if (e.binaryClass === 'archive') {
      out.push(finding('structure-archive', 'medium', 'is an archive; its contents are not scanned', e.path));
    } else if (e.binaryClass === 'other' && e.bytes !== undefined) {
      out.push(finding('structure-binary', MEDIA_EXTENSION.test(e.path) ? 'low' : 'medium', 'is a binary file; it is not scanned', e.path));
    }
    const inScripts = e.path.split('/')[0] === 'scripts';
    if ((e.execBit || e.shebang) && !inScripts) {
      out.push(finding('structure-executable-outside-scripts', 'medium', `is executable (${e.shebang ? 'a #! line' : 'the executable bit'}) but lives outside scripts/, where a reviewer looks for code that runs`, e.path));
    }
  }
  return out;
}
