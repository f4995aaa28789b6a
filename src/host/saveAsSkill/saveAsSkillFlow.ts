import * as path from 'node:path';
import * as vscode from 'vscode';
import { COMMANDS } from '../../core/base/contributions';
import type { Logger } from '../../core/base/logger';
import { describeError } from '../../core/base/logger';
import type { SkillRoot } from '../../core/base/skillRoots';
import type { TranscriptFacts } from '../../core/skills/draft/draftFacts';
import type { DraftResult } from '../../core/skills/draft/skillDraftModel';
import { draftSkillWithModel } from '../../core/skills/draft/skillDraftModel';
import type { DraftScope, Finalized } from '../../core/skills/draft/skillDraftSave';
import { finalizeDraft, saveDraft } from '../../core/skills/draft/skillDraftSave';
import type { OverlapOffer } from '../../core/skills/draft/skillOverlap';
import { skillOverlapOffer } from '../../core/skills/draft/skillOverlap';
import type { SkillToolContext } from '../../core/skills/tools/skillToolContext';
import { runSkillTool } from '../../core/skills/tools/skillTools';
import { resolveChatModel } from '../models/chatModelResolver';
import type { ModelSetup } from '../models/modelSetup';
import type { SaveAsSkillArgs, SaveAsSkillResult } from './saveAsSkillArgs';
import { pickCategory } from '../skills/categoryPick';
import { CHANGE_LOCATION, askPatchInstead, askSave, pickScope } from './saveAsSkillPicks';
import type { DraftEditor, SaveAsSkillReview } from './saveAsSkillReview';
import { readSkillText } from '../skills/skillActionSupport';
import type { SkillService } from '../skills/skillService';

export interface SaveAsSkillDeps {
  readonly skills: SkillService;
  readonly models: ModelSetup;
  readonly review: SaveAsSkillReview;
  readonly logger: Logger;
}

interface Drafted {
  readonly result: DraftResult;
  /** Who wrote the draft, for the messages: "drafted by gpt-4.1 · api.openai.com", "filled in from the template". */
  readonly how: string;
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

const TITLE = 'Save as Skill';

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}

/**
 * From facts to a saved (or patched) skill: draft, lint, look for an existing skill it repeats,
 * ask where it goes, open it for review and save it only when the person says so. Every answer can
 * come from the command's arguments instead (scripts and tests); a missing one is asked.
 */
export class SaveAsSkillFlow {
  constructor(private readonly deps: SaveAsSkillDeps) {}

  async run(facts: TranscriptFacts, args: SaveAsSkillArgs): Promise<SaveAsSkillResult> {
    const { skills } = this.deps;
    await skills.ready;
    const drafted = await this.draft(facts, args.useModel !== false);
    const { result } = drafted;
    const base = {
      name: result.draft.name,
      source: result.source,
      ...(result.fallbackReason ? { fallbackReason: result.fallbackReason } : {}),
      findings: this.findings(result),
    };
    this.deps.logger.info(`Save as skill: "${result.draft.name}" ${drafted.how} in ${result.durationMs} ms (${base.findings.errors} lint error(s), ${base.findings.warnings} warning(s))`);

    const overlap = await this.overlap(result.draft.text, args);
    if (overlap.done) return { ...base, ...overlap.done };
    const overlapInfo = overlap.info ? { overlap: overlap.info } : {};

    let location = await this.location(args);
    if (!location) return { ...base, ...overlapInfo, outcome: 'cancelled', message: 'Nothing was saved.', draftText: result.draft.text };
    const draft = await this.deps.review.openDraft(result.draft.text);
    try {
      if (args.text !== undefined) await draft.replace(args.text);
      for (let attempt = 0; ; attempt++) {
        const where = await this.check(draft.text(), location.scope, location.category);
        const answer = args.confirm !== undefined ? (args.confirm ? 'save' : undefined) : await askSave(this.question(where, drafted), !where.ok);
        if (answer === undefined) {
          return { ...base, ...overlapInfo, outcome: 'cancelled', message: 'Nothing was saved; the draft stays open in its editor.', draftText: draft.text() };
        }
        if (answer === CHANGE_LOCATION) {
          location = (await this.location({})) ?? location;
          continue;
        }
        const saved = await this.save(draft, location.scope, location.category, args.open !== false);
        if (saved.ok) return { ...base, ...overlapInfo, name: saved.name, outcome: 'saved', file: saved.file, message: saved.message };
        if (args.confirm !== undefined || attempt > 20) {
          void vscode.window.showErrorMessage(`Skillwright: the skill was not saved: ${saved.error}`);
          return { ...base, ...overlapInfo, outcome: 'refused', message: saved.error, draftText: draft.text() };
        }
        // The next question shows the refusal and waits for the fixed draft.
      }
    } finally {
      draft.dispose();
    }
  }

  private context(): SkillToolContext {
    const { skills, logger } = this.deps;
    return { fs: skills.fs, index: skills.skillIndex, search: skills.search, logger, usage: skills.usage };
  }

  private findings(result: DraftResult): { errors: number; warnings: number; infos: number; threats: number } {
    const { check } = result;
    return {
      errors: check.errors.length,
      warnings: check.warnings.filter((f) => f.severity === 'warning').length,
      infos: check.warnings.filter((f) => f.severity !== 'warning').length,
      threats: check.threats.length,
    };
  }

  /** With the configured model under a cancellable progress notification; else the template. */
  private async draft(facts: TranscriptFacts, useModel: boolean): Promise<Drafted> {
    if (!useModel) return { result: await draftSkillWithModel(undefined, facts), how: 'filled in from the template' };
    const resolved = await resolveChatModel(this.deps.models, this.deps.logger).catch((error: unknown) => ({ ok: false as const, reason: describeError(error) }));
    if (!resolved.ok) {
      return { result: await draftSkillWithModel(undefined, facts), how: `filled in from the template (${lowerFirst(resolved.reason).replace(/\.$/, '')})` };
    }
    const result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Skillwright: drafting the skill with ${resolved.label}…`, cancellable: true },
      async (_progress, token) => {
        const controller = new AbortController();
        const subscription = token.onCancellationRequested(() => controller.abort());
        try {
          return await draftSkillWithModel(resolved.model, facts, { signal: controller.signal });
        } finally {
          subscription.dispose();
        }
      },
    );
    const how = result.source === 'model' ? `drafted by ${resolved.label}` : `filled in from the template because ${result.fallbackReason ?? 'the model gave no usable answer'}`;
    return { result, how };
  }

  /**
   * "Patch `x` instead": shown as a diff of x's SKILL.md with the draft's new points. `done` ends
   * the flow (patched, or cancelled); otherwise the draft goes on as a new skill.
   */
  private async overlap(draftText: string, args: SaveAsSkillArgs): Promise<{ done?: Omit<SaveAsSkillResult, 'findings'>; info?: SaveAsSkillResult['overlap'] }> {
    const { skills, review, logger } = this.deps;
    const texts = new Map<string, string>();
    const found = await skillOverlapOffer(draftText, {
      records: skills.skillIndex.active(),
      search: skills.search,
      // The same ranker as suggestions and the Skills tab: meaning as well as words when embeddings are on.
      ...(skills.semantic ? { semantic: skills.semantic } : {}),
      readText: async (file) => {
        const text = await readSkillText(skills, file);
        texts.set(file, text);
        return text;
      },
    });
    if (found.error) logger.warn(`Save as skill: ${found.error}`);
    const offer = found.offer;
    if (!offer) return {};
    const info = { skillName: offer.skillName, score: Math.round(offer.overlap.score * 100) / 100, canPatch: offer.canPatch, added: offer.added.length, ...(offer.reason ? { reason: offer.reason } : {}) };
    const similar = `This draft overlaps the skill "${offer.skillName}" (score ${info.score.toFixed(2)}).`;
    if (!offer.canPatch || offer.newErrors.length > 0) {
      const why = offer.reason ?? `patching it would add lint errors (${offer.newErrors.map((f) => f.code).join(', ')})`;
      void vscode.window.showInformationMessage(`Skillwright: ${similar} It cannot be patched from here: ${why}. Continuing with a new skill.`);
      return { info };
    }
    if (offer.added.length === 0) {
      void vscode.window.showInformationMessage(`Skillwright: ${similar} It already says everything the draft says; you can still save the draft as a separate skill.`);
      return { info };
    }
    const before = texts.get(offer.overlap.record.file) ?? '';
    const diff = await review.showPatchDiff(offer.skillName, before, offer.text);
    const answer =
      args.patch !== undefined
        ? args.patch
          ? 'patch'
          : 'new'
        : await askPatchInstead(
            offer.skillName,
            `${similar} Patch "${offer.skillName}" with the draft's ${plural(offer.added.length, 'new point')} instead (see the diff), or save the draft as a new skill?`,
          );
    await review.closeDiff(diff);
    if (answer === 'new') return { info };
    if (answer === undefined) return { done: { outcome: 'cancelled', message: 'Nothing was saved.', overlap: info, draftText } };
    return { done: { ...(await this.patch(offer, args.open !== false)), overlap: info } };
  }

  /** Applies the patch through skill_manage `edit`: validated again and written atomically. */
  private async patch(offer: OverlapOffer, open: boolean): Promise<Omit<SaveAsSkillResult, 'findings' | 'overlap'>> {
    const record = offer.overlap.record;
    const applied = await runSkillTool('skill_manage', { action: 'edit', name: offer.skillName, content: offer.text }, this.context());
    if (!applied.success) {
      void vscode.window.showErrorMessage(`Skillwright: "${offer.skillName}" was not patched: ${applied.error}`);
      return { outcome: 'refused', message: applied.error, draftText: offer.text };
    }
    await this.deps.skills.invalidate([record.file]);
    const message = `Patched "${offer.skillName}" with ${plural(offer.added.length, 'new point')} from the draft.`;
    this.deps.logger.info(`Save as skill: ${message}`);
    if (open) await this.openSaved(record.file);
    void vscode.window.showInformationMessage(`Skillwright: ${message}`);
    return { outcome: 'patched', name: record.name, file: record.file, message };
  }

  private writeRoots(): SkillRoot[] {
    // The index's roots: project roots only when a folder is open and trusted.
    return this.deps.skills.skillIndex.roots.filter((root) => root.writeTarget);
  }

  /** Scope and category, from the arguments or asked; undefined when the person cancelled. */
  private async location(args: SaveAsSkillArgs): Promise<{ scope: DraftScope; category: string } | undefined> {
    const roots = this.writeRoots();
    let scope = args.scope;
    if (scope === undefined) {
      if (roots.length === 0) throw new Error('Skillwright has no folder to save skills to: ~/.agents/skills is disabled in skillwright.skills.disabledRoots and no trusted folder is open.');
      scope = roots.length === 1 ? (roots[0] as SkillRoot).scope as DraftScope : await pickScope(roots, `${TITLE}: where`);
    }
    if (scope === undefined) return undefined;
    const root = roots.find((r) => r.scope === scope);
    let category = args.category;
    if (category === undefined) {
      const categories = root ? [...new Set(this.deps.skills.skillIndex.all().filter((r) => r.root.path === root.path && r.category).map((r) => r.category))].sort() : [];
      category = await pickCategory(categories, root?.label ?? '', `${TITLE}: category`);
    }
    return category === undefined ? undefined : { scope, category };
  }

  /** `finalizeDraft`, with the real reason when the project folder is left out because it is not trusted. */
  private async check(text: string, scope: DraftScope, category: string): Promise<Finalized> {
    const untrusted = scope === 'project' && !vscode.workspace.isTrusted && (vscode.workspace.workspaceFolders?.length ?? 0) > 0;
    if (untrusted && !this.writeRoots().some((root) => root.scope === 'project')) {
      return { ok: false, error: 'this folder is not trusted (Restricted Mode), so Skillwright does not write project skills in it; trust the folder first, or save the skill for the user (~/.agents/skills)' };
    }
    return finalizeDraft(text, scope, category, this.context());
  }

  private question(where: Finalized, drafted: Drafted): string {
    const findings = this.findings(drafted.result);
    const lint = `Lint: ${plural(findings.errors, 'error')}, ${plural(findings.warnings, 'warning')}${findings.threats > 0 ? `, ${plural(findings.threats, 'threat finding')}` : ''}.`;
    if (!where.ok) return `The draft cannot be saved yet: ${where.error}. Fix it in the draft editor (nothing was written), then choose Save Skill.`;
    const warnings = where.target.warnings.slice(0, 2).map((w) => ` ${w}.`).join('');
    return `Review the draft of "${where.target.name}" (${drafted.how}) and edit it if you like, then save it as ${where.target.displayPath}. ${lint}${warnings}`;
  }

  private async save(draft: DraftEditor, scope: DraftScope, category: string, open: boolean): Promise<{ ok: true; name: string; file: string; message: string } | { ok: false; error: string }> {
    const text = draft.text();
    const where = await this.check(text, scope, category);
    if (!where.ok) return { ok: false, error: where.error };
    const saved = await saveDraft(text, scope, category, this.context());
    if (!saved.success) return { ok: false, error: saved.error };
    const { name, file, displayPath } = where.target;
    // skill_manage already invalidated the file; the folder too, so its watcher and parents follow.
    await this.deps.skills.invalidate([path.dirname(file)]);
    await this.deps.review.closeDraft(draft);
    if (open) await this.openSaved(file);
    const hidden = scope === 'project' && !vscode.workspace.isTrusted ? ' Project skills stay hidden in Restricted Mode until you trust this folder.' : '';
    const message = `Saved the skill "${name}" as ${displayPath}.${hidden}`;
    this.deps.logger.info(`Save as skill: ${message}`);
    void vscode.window.showInformationMessage(`Skillwright: ${message}`);
    return { ok: true, name, file, message };
  }

  private async openSaved(file: string): Promise<void> {
    const uri = vscode.Uri.file(file);
    await vscode.window.showTextDocument(uri, { viewColumn: vscode.ViewColumn.One, preview: false });
    try {
      await vscode.commands.executeCommand(COMMANDS.openSkillPreview, uri);
    } catch (error) {
      this.deps.logger.info(`Save as skill: no preview for ${file}: ${describeError(error)}`);
    }
  }
}
