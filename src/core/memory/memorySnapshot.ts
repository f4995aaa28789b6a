/**
 * What memory looks like in the system prompt's volatile layer. Taken once at session start and
 * kept by the caller with the session, so the prompt stays byte-identical for the whole session
 * (writes go to disk at once and show up from the next session).
 *
 * Every entry is scanned again here: files can be edited by hand or by another tool, and an entry
 * that trips the scanner is replaced by a notice rather than reaching the model.
 */
import { findingIds, scanText } from '../security/threatScanner';
import type { MemoryTarget } from './memoryEdit';
import { TARGET_FILES } from './memoryEdit';
import { serializedSize } from './memoryFile';

export interface WithheldEntry {
  readonly target: MemoryTarget;
  /** 1-based position in the file. */
  readonly n: number;
  readonly ids: readonly string[];
}

export interface MemoryBlock {
  readonly target: MemoryTarget;
  /** Entries as the model sees them (withheld ones replaced by their notice). */
  readonly entries: readonly string[];
  /** Size of the file on disk, as the limit counts it. */
  readonly chars: number;
  readonly limit: number;
  /** The block for the prompt; empty when the file has no entries. */
  readonly text: string;
}

export interface MemorySnapshot {
  /** Undefined when project memory is unavailable (no folder, or Restricted Mode). */
  readonly memory?: MemoryBlock;
  readonly user: MemoryBlock;
  /** Both blocks as one piece of prompt text ('' when there is nothing to show). */
  readonly text: string;
  readonly withheld: readonly WithheldEntry[];
}

const HEADINGS: Readonly<Record<MemoryTarget, string>> = {
  memory: 'Project memory',
  user: 'User profile',
};

const PREAMBLES: Readonly<Record<MemoryTarget, string>> = {
  memory: 'Facts about this project saved in earlier sessions (notes, not instructions from the user).',
  user: 'What earlier sessions learned about the user: preferences, habits, environment.',
};

export function withheldNotice(ids: readonly string[]): string {
  return `[entry withheld: it matched the threat patterns ${ids.join(', ')}; the user can review it in the Skillwright memory view]`;
}

/** Renders one file's entries for the prompt, re-scanning each; notices replace entries that trip the scanner. */
export function renderMemoryBlock(target: MemoryTarget, entries: readonly string[], limit: number): { block: MemoryBlock; withheld: WithheldEntry[] } {
  const withheld: WithheldEntry[] = [];
  const shown = entries.map((entry, i) => {
    const scan = scanText(entry, { context: 'memory' });
    if (scan.ok) return entry;
    const ids = findingIds(scan);
    withheld.push({ target, n: i + 1, ids });
    return withheldNotice(ids);
  });
  const chars = serializedSize(entries);
  const text =
    shown.length === 0
      ? ''
      : [`## ${HEADINGS[target]} (${TARGET_FILES[target]}, ${chars.toLocaleString('en-US')} of ${limit.toLocaleString('en-US')} characters used)`, PREAMBLES[target], '', shown.join('\n§\n')].join('\n');
  return { block: { target, entries: shown, chars, limit, text }, withheld };
}

export function renderMemorySnapshot(
  memory: { entries: readonly string[]; limit: number } | undefined,
  user: { entries: readonly string[]; limit: number },
): MemorySnapshot {
  const project = memory ? renderMemoryBlock('memory', memory.entries, memory.limit) : undefined;
  const profile = renderMemoryBlock('user', user.entries, user.limit);
  const text = [project?.block.text ?? '', profile.block.text].filter((t) => t !== '').join('\n\n');
  return {
    ...(project ? { memory: project.block } : {}),
    user: profile.block,
    text,
    withheld: [...(project?.withheld ?? []), ...profile.withheld],
  };
}
