import * as path from 'node:path';
import * as vscode from 'vscode';
import type { TriggerTestResult } from '../../core/agent/triggerTest';
import { DEFAULT_TRIGGER_RUNS, TriggerTestError, describeTriggerTest, runTriggerTest, triggerQueries, triggerTestRecord, triggerTestTarget } from '../../core/agent/triggerTest';
import { COMMANDS, SETTINGS } from '../../core/base/contributions';
import type { SkillRecord } from '../../core/skills/model/skillTypes';
import { SKILL_FILE } from '../../core/skills/model/skillTypes';
import type { AgentFactoryDeps } from '../chat/agentFactory';
import { buildAgent } from '../chat/agentFactory';
import { resolveChatModel } from '../models/chatModelResolver';
import type { ModelSetup } from '../models/modelSetup';
import { SkillPicker } from './skillPicker';

/** What scripts and tests pass to `skillwright.testTriggering`; a menu passes a SKILL.md URI instead. */
export interface TriggerTestArgs {
  readonly name?: string;
  readonly file?: string;
  /** Queries to send besides (or, with `examples: false`, instead of) the example queries; no prompt for more. */
  readonly queries?: readonly string[];
  readonly examples?: boolean;
  readonly runs?: number;
}

export interface TriggerTestDeps extends Pick<AgentFactoryDeps, 'skills' | 'memory' | 'sessions' | 'execution' | 'logger'> {
  readonly models: ModelSetup;
  /** A result was kept: the Skills tab and the preview show it. */
  readonly onDidKeep?: (result: TriggerTestResult) => void;
}

/** The highest `skillwright.triggerTest.runs` allows. */
const MAX_SETTING_RUNS = 10;

export function isTriggerTestArgs(value: unknown): value is TriggerTestArgs {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || value instanceof vscode.Uri) return false;
  const record = value as Record<string, unknown>;
  return (
    ['name', 'file'].every((key) => record[key] === undefined || typeof record[key] === 'string') &&
    (record['queries'] === undefined || (Array.isArray(record['queries']) && record['queries'].every((query) => typeof query === 'string'))) &&
    (record['examples'] === undefined || typeof record['examples'] === 'boolean') &&
    (record['runs'] === undefined || typeof record['runs'] === 'number')
  );
}

function configuredRuns(): number {
  const value = vscode.workspace.getConfiguration(SETTINGS.section).get<number>(SETTINGS.triggerTestRuns, DEFAULT_TRIGGER_RUNS);
  return Number.isInteger(value) && value >= 1 ? Math.min(value, MAX_SETTING_RUNS) : DEFAULT_TRIGGER_RUNS;
}

/**
 * **Test Triggering**: sends a skill's example queries (or typed ones) to the configured model a
 * few times in turns where nothing runs and nothing is written, and keeps how often the model
 * loaded the skill with its usage statistics (the Skills tab and the preview show it).
 */
export class TriggerTestCommand {
  constructor(private readonly deps: TriggerTestDeps) {}

  /** Runs the test for `target` (args, a SKILL.md URI, the active SKILL.md, or a pick); the result, or undefined when nothing was tested. */
  async run(target?: unknown): Promise<TriggerTestResult | undefined> {
    const { skills, logger } = this.deps;
    await skills.ready;
    const args = isTriggerTestArgs(target) ? target : {};
    const record = await this.target(target, args);
    if (!record) return undefined;
    const queries = args.queries !== undefined ? triggerQueries(record, args.queries, args.examples ?? true) : await this.askQueries(record);
    if (!queries) return undefined;
    if (queries.length === 0) {
      void vscode.window.showWarningMessage(`Skillwright: "${record.name}" has no example_queries and no query was given, so there is nothing to test.`);
      return undefined;
    }
    const resolved = await resolveChatModel(this.deps.models, logger);
    if (!resolved.ok) {
      const choice = await vscode.window.showWarningMessage(`Skillwright: Test Triggering needs a model. ${resolved.reason}`, 'Configure Model…');
      if (choice) await vscode.commands.executeCommand(COMMANDS.configureModel);
      return undefined;
    }
    const runs = args.runs !== undefined ? args.runs : configuredRuns();
    // A session started now: the same catalog, instruction files, memory snapshot and tools. Nothing of it runs.
    const built = await buildAgent({ ...this.deps, ...(skills.semantic ? { embeddings: skills.semantic } : {}) }, () => undefined);
    const result = await this.withProgress(record, async (progress, signal) =>
      runTriggerTest({
        model: resolved.model,
        systemPrompt: built.assembled.prompt.text,
        tools: built.assembled.tools.map((tool) => tool.spec),
        skills: { fs: skills.fs, index: skills.skillIndex, search: skills.search, logger },
        suggest: built.assembled.suggestHybrid ?? built.assembled.suggest,
        skill: record.name,
        queries,
        runs,
        signal,
        onProgress: (step) => progress.report({ increment: 100 / step.total, message: `${step.done}/${step.total}: ${step.query}` }),
      }),
    );
    if (!result) return undefined;
    logger.info(`Test Triggering: ${describeTriggerTest(result).join(' | ')}`);
    if (result.error) {
      void vscode.window.showErrorMessage(`Skillwright: Test Triggering stopped: the model failed: ${result.error.message} ${result.error.advice}`);
      return result;
    }
    if (result.stopped) return result;
    // Only a complete test is kept: a partial one would read as the skill's rate.
    skills.usage.recordTriggerTest(result.skill, triggerTestRecord(result));
    this.deps.onDidKeep?.(result);
    void this.report(result);
    return result;
  }

  /** A cancellable notification; a TriggerTestError becomes a warning, other failures go to the command guard. */
  private async withProgress(
    record: SkillRecord,
    task: (progress: vscode.Progress<{ increment?: number; message?: string }>, signal: AbortSignal) => Promise<TriggerTestResult>,
  ): Promise<TriggerTestResult | undefined> {
    try {
      return await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `Testing how "${record.name}" triggers`, cancellable: true },
        async (progress, token) => {
          const stop = new AbortController();
          const listener = token.onCancellationRequested(() => stop.abort());
          try {
            return await task(progress, stop.signal);
          } finally {
            listener.dispose();
          }
        },
      );
    } catch (error) {
      if (!(error instanceof TriggerTestError)) throw error;
      void vscode.window.showWarningMessage(`Skillwright: ${error.message}`);
      return undefined;
    }
  }

  private async target(target: unknown, args: TriggerTestArgs): Promise<SkillRecord | undefined> {
    const { skills } = this.deps;
    const context = { fs: skills.fs, index: skills.skillIndex, search: skills.search };
    const uri = target instanceof vscode.Uri ? target : undefined;
    const active = vscode.window.activeTextEditor?.document.uri;
    const file = args.file ?? uri?.fsPath ?? (args.name === undefined && active?.scheme === 'file' && path.basename(active.fsPath) === SKILL_FILE ? active.fsPath : undefined);
    let name = args.name;
    if (name === undefined && file !== undefined) {
      const record = skills.skillIndex.all().find((r) => r.file === file);
      if (!record) throw new Error(`${file} is not an indexed skill; save it under a skill folder first.`);
      name = record.name;
    }
    name ??= await new SkillPicker(skills, (picked) => Promise.resolve(skills.skillIndex.all().find((r) => r.file === picked)?.name), 'Test Triggering').run();
    if (name === undefined) return undefined;
    const found = triggerTestTarget(name, context);
    if (!found.ok) throw new Error(`Cannot test "${name}": ${found.error}`);
    return found.record;
  }

  /** The example queries, with or without typed ones; typed ones only when there are none. Undefined: cancelled. */
  private async askQueries(record: SkillRecord): Promise<string[] | undefined> {
    let useExamples = record.exampleQueries.length > 0;
    if (useExamples) {
      const count = record.exampleQueries.length;
      const choice = await vscode.window.showQuickPick(
        [
          { label: `Test the ${count} example ${count === 1 ? 'query' : 'queries'}`, detail: record.exampleQueries.join(' · '), id: 'examples' },
          { label: 'Test the example queries and my own…', id: 'both' },
          { label: 'Test only my own queries…', id: 'own' },
        ],
        { title: `Test Triggering: ${record.name}`, placeHolder: 'Which requests should the model get?' },
      );
      if (!choice) return undefined;
      if (choice.id === 'examples') return triggerQueries(record);
      useExamples = choice.id === 'both';
    }
    const typed: string[] = [];
    for (;;) {
      const query = await vscode.window.showInputBox({
        title: `Test Triggering: ${record.name} (query ${typed.length + 1})`,
        prompt: typed.length === 0 ? 'A request this skill should handle, as a user would type it' : 'Another request, or leave empty and press Enter to start',
        placeHolder: record.useCases[0] ?? record.description.slice(0, 80),
        ignoreFocusOut: true,
      });
      if (query === undefined) return undefined;
      if (query.trim() === '') break;
      typed.push(query);
    }
    return triggerQueries(record, typed, useExamples);
  }

  private async report(result: TriggerTestResult): Promise<void> {
    const percent = Math.round(result.rate * 100);
    const choice = await vscode.window.showInformationMessage(`Skillwright: ${result.loaded}/${result.runs} runs loaded "${result.skill}" (${percent}%).`, 'Show Details', 'Open Preview');
    if (choice === 'Open Preview') {
      await vscode.commands.executeCommand(COMMANDS.openSkillPreview, vscode.Uri.file(result.file));
    } else if (choice === 'Show Details') {
      await vscode.window.showQuickPick(
        result.queries.map((query) => ({
          label: `${query.loaded}/${query.runs}  ${query.query}`,
          detail: [query.others.length > 0 ? `instead: ${query.others.map((o) => `${o.name} ${o.runs}×`).join(', ')}` : '', query.none > 0 ? `no skill ${query.none}×` : '', query.suggested ? '' : 'not among the suggestions']
            .filter(Boolean)
            .join(' · '),
        })),
        { title: `Triggering of ${result.skill} with ${result.model}`, placeHolder: 'Runs that loaded the skill, per query' },
      );
    }
  }
}
