import type { SkillScope } from '../../base/skillRoots';
import type { CatalogResult } from './skillCatalog';
import type { SkillRecord } from '../model/skillTypes';
import type { SkillUsageEntry } from '../index/skillUsage';
import { healthOf } from '../index/skillHealth';
import type { ArchivedSkill } from '../index/skillArchive';

/** How a skill appears in the catalog the model sees; absent for skills that are not in use. */
export type CatalogState = 'full' | 'shortened' | 'collapsed' | 'omitted';

/** One row of the skill browser (the shape of the panel protocol's `SkillListItem`). */
export interface BrowserSkill {
  file: string;
  name: string;
  description: string;
  category: string;
  scope: SkillScope;
  rootLabel: string;
  level?: number;
  version?: string;
  errors: number;
  warnings: number;
  shadowedBy?: string;
  platformHidden: boolean;
  disabled: boolean;
  /** A project skill that came with the repository and waits for consent (core/skills/consent). */
  awaitingConsent?: boolean;
  usage?: { lastUsed?: string; runs: number; views: number };
  /** From the usage statistics (skillHealth.ts); absent for a skill with no usage recorded. */
  health?: BrowserSkillHealth;
  inCatalog?: CatalogState;
}

export interface BrowserSkillHealth {
  /** `''` when there is nothing to say beyond the usage line. */
  line: string;
  successRate?: number;
  stale: boolean;
  archivable: boolean;
  /** The order of "by usefulness", higher first. */
  usefulness: number;
}

/** An archived skill as the browser lists it (the protocol's `ArchivedSkillItem`). */
export interface BrowserArchivedSkill {
  /** The archived folder: the key of `skills/restore`. */
  dir: string;
  name: string;
  description: string;
  version?: string;
  /** The category it goes back to. */
  category: string;
  scope: SkillScope;
  rootLabel: string;
}

export interface BrowserCatalogSummary {
  tokens: number;
  budget: number;
  included: number;
  shortened: number;
  /** Categories reduced to names. */
  collapsed: number;
  omitted: string[];
}

export interface LintCounts {
  readonly errors: number;
  readonly warnings: number;
}

export interface BrowserListInputs {
  readonly records: readonly SkillRecord[];
  /** Lint counts of a SKILL.md; undefined while it has not been linted yet. */
  readonly lint: (file: string) => LintCounts | undefined;
  readonly usage: (name: string) => SkillUsageEntry | undefined;
  readonly catalog?: CatalogResult;
  /** For the health line's ages and staleness; defaults to the clock. */
  readonly now?: number;
  /** The skills a SKILL.md declares it calls, when known (read only for skills whose runs called others). */
  readonly declared?: (record: SkillRecord) => readonly string[] | undefined;
}

/**
 * A row shows one line of the description; the rest costs message size for nothing (10,000 skills
 * with 1,024-character descriptions would be a 10 MB message). Search runs in the host on the full text.
 */
export const LIST_DESCRIPTION_CHARS = 240;

function listDescription(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= LIST_DESCRIPTION_CHARS ? flat : `${flat.slice(0, LIST_DESCRIPTION_CHARS - 1).trimEnd()}…`;
}

function isActive(record: SkillRecord): boolean {
  return !record.shadowedBy && !record.disabled && !record.platformHidden && !record.awaitingConsent;
}

/** Where each catalog name ended up; a name in none of the lists is listed in full. */
export function catalogStates(catalog: CatalogResult): (record: SkillRecord) => CatalogState | undefined {
  const states = new Map<string, CatalogState>();
  for (const name of catalog.shortened) states.set(name, 'shortened');
  for (const name of catalog.namesOnly) states.set(name, 'collapsed');
  for (const name of catalog.omitted) states.set(name, 'omitted');
  return (record) => (isActive(record) ? (states.get(record.name) ?? 'full') : undefined);
}

/** Every indexed skill (shadowed, disabled and platform-hidden copies included) as browser rows. */
export function browserSkills(inputs: BrowserListInputs): BrowserSkill[] {
  const state = inputs.catalog ? catalogStates(inputs.catalog) : () => undefined;
  const now = inputs.now ?? Date.now();
  return inputs.records.map((record) => {
    const lint = inputs.lint(record.file);
    // Until the lint has run, what the index could not read is all there is to count.
    const errors = lint ? lint.errors : record.readErrors.length;
    const item: BrowserSkill = {
      file: record.file,
      name: record.name,
      description: listDescription(record.description),
      category: record.category,
      scope: record.scope,
      rootLabel: record.root.label,
      level: record.level,
      errors,
      warnings: lint?.warnings ?? 0,
      platformHidden: record.platformHidden === true,
      disabled: record.disabled === true,
    };
    if (record.version !== undefined) item.version = record.version;
    if (record.awaitingConsent) item.awaitingConsent = true;
    if (record.shadowedBy !== undefined) item.shadowedBy = record.shadowedBy;
    // Usage is kept by name, so it belongs to the copy in use, not to the copies it shadows.
    const usage = record.shadowedBy ? undefined : inputs.usage(record.name);
    if (usage && (usage.runs > 0 || usage.views > 0 || usage.lastUsed !== undefined)) {
      item.usage = { runs: usage.runs, views: usage.views, ...(usage.lastUsed !== undefined ? { lastUsed: new Date(usage.lastUsed).toISOString() } : {}) };
    }
    if (usage && hasHistory(usage)) {
      const declared = inputs.declared?.(record);
      const health = healthOf(usage, now, declared ? { declared } : {});
      item.health = {
        line: health.line,
        stale: health.stale,
        archivable: health.archivable,
        usefulness: health.usefulness,
        ...(health.successRate !== undefined ? { successRate: health.successRate } : {}),
      };
    }
    const inCatalog = state(record);
    if (inCatalog) item.inCatalog = inCatalog;
    return item;
  });
}

function hasHistory(usage: SkillUsageEntry): boolean {
  return (
    usage.runs > 0 || usage.views > 0 || usage.lastUsed !== undefined || (usage.thumbsUp ?? 0) > 0 || (usage.thumbsDown ?? 0) > 0 || usage.createdBy !== undefined ||
    // A skill suggested but never loaded is exactly the one whose triggering needs a look.
    (usage.suggested ?? 0) > 0 || (usage.loadedTurns ?? 0) > 0 || usage.triggerTest !== undefined
  );
}

export function browserArchivedSkills(archived: readonly ArchivedSkill[]): BrowserArchivedSkill[] {
  return archived.map((skill) => ({
    dir: skill.dir,
    name: skill.name,
    description: listDescription(skill.description),
    ...(skill.version !== undefined ? { version: skill.version } : {}),
    category: skill.category,
    scope: skill.root.scope,
    rootLabel: skill.root.label,
  }));
}

export function browserCatalogSummary(catalog: CatalogResult): BrowserCatalogSummary {
  return {
    tokens: catalog.tokens,
    budget: catalog.budgetTokens,
    included: catalog.included,
    shortened: catalog.shortened.length,
    collapsed: catalog.collapsed.length,
    omitted: [...catalog.omitted],
  };
}
