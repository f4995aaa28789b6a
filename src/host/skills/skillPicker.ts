import * as vscode from 'vscode';
import { browserSearch } from '../../core/skills/search/browserSearch';
import type { SkillRecord } from '../../core/skills/model/skillTypes';
import type { SkillService } from './skillService';

export interface OpenSkillArgs {
  readonly name?: string;
  readonly file?: string;
}

/** Arguments from scripts and tests; anything else (e.g. a URI from a menu) means "ask". */
export function isOpenSkillArgs(value: unknown): value is OpenSkillArgs {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || value instanceof vscode.Uri) return false;
  const record = value as Record<string, unknown>;
  return ['name', 'file'].every((key) => record[key] === undefined || typeof record[key] === 'string');
}

type SkillItem = vscode.QuickPickItem & { readonly file: string };

const SEARCH_DEBOUNCE_MS = 120;

function item(record: SkillRecord, alwaysShow: boolean): SkillItem {
  const marks = [record.shadowedBy ? 'shadowed' : '', record.disabled ? 'disabled' : '', record.platformHidden ? 'other platform' : ''].filter(Boolean);
  return {
    label: record.name,
    description: [record.category, record.root.label, ...marks].filter(Boolean).join(' · '),
    detail: record.description.replace(/\s+/g, ' ').slice(0, 200),
    file: record.file,
    alwaysShow,
  };
}

/**
 * "Open Skill…". With an empty box it lists every skill; as you type, the skill search ranks
 * them (descriptions, tags and use cases count, not only names). VS Code's quick pick still
 * moves entries whose name matches the typed text to the top (public API cannot turn that off);
 * the search's own order holds below them.
 */
export class SkillPicker {
  constructor(
    private readonly skills: SkillService,
    private readonly open: (file: string) => Promise<string | undefined>,
    private readonly title = 'Open Skill',
  ) {}

  async run(args: OpenSkillArgs = {}): Promise<string | undefined> {
    await this.skills.ready;
    const records = this.skills.skillIndex.all();
    if (args.file !== undefined || args.name !== undefined) {
      const record =
        records.find((r) => r.file === args.file) ?? (args.name !== undefined ? (this.skills.skillIndex.byName(args.name)[0] ?? undefined) : undefined);
      if (!record) throw new Error(`No skill ${args.name !== undefined ? `named "${args.name}"` : `at ${args.file}`} is indexed.`);
      return this.open(record.file);
    }
    if (records.length === 0) {
      const choice = await vscode.window.showInformationMessage('Skillwright: there are no skills yet.', 'New Skill from Template…');
      if (choice) await vscode.commands.executeCommand('skillwright.newSkillFromTemplate');
      return undefined;
    }
    const byFile = new Map(records.map((record) => [record.file, record]));
    const all = records.map((record) => item(record, false));
    const pick = vscode.window.createQuickPick<SkillItem>();
    pick.title = this.title;
    pick.placeholder = `Search ${records.length.toLocaleString('en-US')} skills by name, description or use`;
    pick.matchOnDescription = true;
    pick.matchOnDetail = true;
    pick.items = all;
    let timer: ReturnType<typeof setTimeout> | undefined;
    pick.onDidChangeValue((value) => {
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => {
        if (value.trim() === '') {
          pick.items = all;
          return;
        }
        const files = browserSearch(value, this.skills.search, records);
        const hits = files.map((file) => byFile.get(file)).filter((record): record is SkillRecord => record !== undefined);
        const ranked = new Set(files);
        // Replacing the items moves the highlight to the first one; keep it on the skill the person
        // is looking at, so an Enter that lands just as the ranked list arrives opens what was shown.
        const shown = pick.activeItems[0]?.file;
        const next = [...hits.map((record) => item(record, true)), ...all.filter((entry) => !ranked.has(entry.file))];
        pick.items = next;
        const keep = shown === undefined ? undefined : next.find((entry) => entry.file === shown);
        if (keep) pick.activeItems = [keep];
      }, SEARCH_DEBOUNCE_MS);
    });
    const chosen = await new Promise<SkillItem | undefined>((resolve) => {
      pick.onDidAccept(() => {
        resolve(pick.selectedItems[0] ?? pick.activeItems[0]);
        pick.hide();
      });
      pick.onDidHide(() => resolve(undefined));
      pick.show();
    });
    if (timer) clearTimeout(timer);
    pick.dispose();
    return chosen ? this.open(chosen.file) : undefined;
  }
}
