import { oneLine } from '../../text/clip';
import type { CatalogResult } from '../catalog/skillCatalog';
import { TOP_LEVEL_CATEGORY_LABEL } from '../../../shared/system/categoryLabel';
import { clipWords } from '../../text/clip';
import { SHORT_DESCRIPTION_CHARS, firstSentence } from '../catalog/skillCatalog';
import type { SkillRecord } from '../model/skillTypes';

export interface CatalogLineInput {
  /** The SKILL.md shown. */
  readonly file: string;
  /** Name and description as the open buffer has them now (they may differ from the saved file). */
  readonly name: string;
  readonly description: string;
  /** Every record of the index (shadowed, disabled and hidden ones included). */
  readonly records: readonly SkillRecord[];
  /** The catalog built from the index; undefined while the index is still loading. */
  readonly catalog?: CatalogResult;
  /** This machine, as `platforms` names it (linux, macos, windows). */
  readonly platform: string;
  /** Why the host holds this file back when it knows (e.g. Restricted Mode). */
  readonly notIndexedReason?: string;
}

/** How the catalog writes a name (see catalogOrder.skillName): one line, never empty. */
export function catalogName(name: string, folderName: string): string {
  return oneLine(name) || oneLine(folderName) || '(unnamed)';
}

/**
 * The exact catalog text the model sees for this skill, or one sentence saying why it sees none.
 * Literal catalog text always starts with "- " (a listed skill) or "### " (a category listed by
 * names only); a reason never does, which is how the preview tells the two apart.
 *
 * Whether a skill is listed, shortened, collapsed or left out is decided over the saved skills (the
 * index); the line itself is rebuilt from the buffer, so it follows typing: a shortened description
 * is shortened the same way the catalog shortened the saved one.
 */
/** The catalog line and whether it is one (`listed`) or the reason there is none. */
export function previewCatalogEntry(input: CatalogLineInput): { readonly listed: boolean; readonly text: string } {
  const reason = (text: string) => ({ listed: false, text });
  const listed = (text: string) => ({ listed: true, text });
  const record = input.records.find((candidate) => candidate.file === input.file);
  if (!record) {
    return reason(
      input.notIndexedReason ??
        'Not in the catalog: Skillwright does not index this file. It reads skills from .agents/skills (also .github/skills and .claude/skills) in each workspace folder and from ~/.agents/skills; add other folders with the skillwright.skills.extraRoots setting.',
    );
  }
  if (record.disabled) return reason(`Not in the catalog: "${record.name}" is disabled in the skillwright.skills.disabled setting.`);
  if (record.shadowedBy) {
    const why = record.shadowReason ? ` (${record.shadowReason})` : '';
    return reason(`Not in the catalog: shadowed by ${record.shadowedBy}${why}. Rename one of the two to offer both.`);
  }
  if (record.platformHidden) {
    return reason(`Not in the catalog: its platforms (${record.platforms.join(', ')}) exclude this machine (${input.platform}).`);
  }
  const catalog = input.catalog;
  if (!catalog) return reason('The catalog is still being built; this line appears once the skill index has loaded.');
  const listedName = oneLine(record.name) || oneLine(record.folderName) || '(unnamed)';
  if (catalog.omitted.includes(listedName)) {
    return reason(`Not in the catalog: left out to keep the catalog within its budget of ${catalog.budgetTokens.toLocaleString('en-US')} tokens (setting skillwright.catalog.budgetTokens). The model can still find it with skills_list.`);
  }
  const lines = catalog.text.split('\n');
  if (catalog.namesOnly.includes(listedName)) {
    const header = `### ${oneLine(record.category) || TOP_LEVEL_CATEGORY_LABEL} (names only)`;
    const at = lines.indexOf(header);
    if (at >= 0 && lines[at + 1] !== undefined) return listed(`${header}\n${lines[at + 1]}`);
  }
  const description = oneLine(input.description);
  let shown = description;
  if (catalog.shortened.includes(listedName)) {
    const saved = lines.find((line) => line.startsWith(`- ${listedName}: `))?.slice(listedName.length + 4);
    const sentence = firstSentence(description);
    shown = saved !== undefined && saved === firstSentence(oneLine(record.description)) ? sentence : clipWords(sentence, SHORT_DESCRIPTION_CHARS);
  }
  return listed(shown ? `- ${input.name}: ${shown}` : `- ${input.name}`);
}

export function previewCatalogLine(input: CatalogLineInput): string {
  return previewCatalogEntry(input).text;
}
