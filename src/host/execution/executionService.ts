import * as vscode from 'vscode';
import type { Disposable } from '../../core/base/disposableStore';
import { Emitter } from '../../core/base/emitter';
import type { Logger } from '../../core/base/logger';
import { NodeFileSystem } from '../../core/base/nodeFileSystem';
import type { RunApproval, RunContextVariables, RunOrigin, RunTrace } from '../../core/execution/executionTypes';
import { createNodeExecutor, readFirstLine } from '../../core/execution/executorSetup';
import { killAllScripts, NodeScriptPort } from '../../core/execution/nodeScriptPort';
import { runScriptSkill } from '../../core/execution/scriptRunner';
import type { ExecutedRun, SkillExecutor } from '../../core/execution/skillExecutor';
import type { TraceStore } from '../../core/execution/traceStore';
import type { StepProgress } from '../../core/execution/workflowRunner';
import type { SkillService } from '../skills/skillService';
import type { SkillTuning } from '../../core/execution/skillTuning';
import { createSkillTuning } from '../../core/execution/skillTuning';

/** Selections past this are cut before they become a context variable: a skill gets a hint, not a file. */
const MAX_SELECTION_CHARS = 20_000;

export interface ExecutionRunOptions {
  readonly origin: RunOrigin;
  readonly approve: RunApproval;
  readonly signal?: AbortSignal;
  readonly sessionId?: string;
  readonly onProgress?: (progress: StepProgress) => void;
}

/**
 * The executor as the window uses it: one per window, with the skills' usage as feedback, the
 * tuned values, trace files beside the sessions, and every script killed when the window closes.
 * Each caller brings its own approval (the chat's cards, the Run Skill form's dialog).
 */
export class ExecutionService implements Disposable {
  readonly executor: SkillExecutor;
  readonly traces: TraceStore;
  readonly tuning: SkillTuning;
  private readonly ranEmitter = new Emitter<RunTrace>('Skill runs');
  /** Fired after every run: the Skills tab and the preview refresh health and tuned values. */
  readonly onDidRun = this.ranEmitter.event;

  constructor(
    private readonly skills: SkillService,
    storageDir: string,
    private readonly logger: Logger,
  ) {
    const fs = new NodeFileSystem();
    this.tuning = createSkillTuning({
      storageDir,
      fs,
      logger,
      // Only script skills tune by script, and only after a run of theirs the person approved.
      runTuningScript: (skill, entry, input) =>
        runScriptSkill(
          { name: skill.name, dir: skill.dir, entry, timeoutMs: skill.timeoutMs, envNames: skill.env },
          input,
          { port: new NodeScriptPort(), cwd: skill.dir, processEnv: process.env, nodePath: process.execPath, readFirstLine },
        ),
    });
    const built = createNodeExecutor({
      index: skills.skillIndex,
      fs,
      storageDir,
      processEnv: process.env,
      approve: async () => ({ allowed: false, reason: 'no one was asked' }),
      mayRun: () =>
        vscode.workspace.isTrusted
          ? { allowed: true }
          : { allowed: false, reason: 'this workspace is in Restricted Mode, where no script or endpoint runs. Trust the folder with "Manage Workspace Trust" first.' },
      feedback: skills.usage,
      tuning: this.tuning,
      logger,
    });
    this.executor = built.executor;
    this.traces = built.traces;
  }

  /** The context variables of this moment: folder, active file, selection, language, user language. */
  contextVariables(sessionId?: string): RunContextVariables {
    const editor = vscode.window.activeTextEditor;
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const selected = editor && !editor.selection.isEmpty ? editor.document.getText(editor.selection).slice(0, MAX_SELECTION_CHARS) : undefined;
    return {
      ...(folder !== undefined ? { workspaceFolder: folder } : {}),
      ...(editor && editor.document.uri.scheme === 'file' ? { activeFile: editor.document.uri.fsPath, languageId: editor.document.languageId } : {}),
      ...(selected !== undefined ? { selection: selected } : {}),
      userLanguage: vscode.env.language,
      ...(sessionId !== undefined ? { sessionId } : {}),
    };
  }

  async run(name: string, args: unknown, options: ExecutionRunOptions): Promise<ExecutedRun> {
    await Promise.all([this.skills.ready, this.tuning.ready]);
    const result = await this.executor.run(name, args, {
      context: this.contextVariables(options.sessionId),
      origin: options.origin,
      approve: options.approve,
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    });
    this.logger.info(`Ran skill ${result.trace.skill} (${result.trace.kind}, ${options.origin}): ${result.success ? 'success' : 'failed'} in ${result.trace.durationMs} ms, trace ${result.trace_id}`);
    this.ranEmitter.fire(result.trace);
    return result;
  }

  /** The executor as skill_run takes it: waits for the index and the tuned values, and tells listeners after each run. */
  readonly forTools: Pick<SkillExecutor, 'run'> = {
    run: async (name, args, options) => {
      await Promise.all([this.skills.ready, this.tuning.ready]);
      const result = await this.executor.run(name, args, options);
      this.ranEmitter.fire(result.trace);
      return result;
    },
  };

  dispose(): void {
    // Scripts run in their own process groups; closing the window must not leave them behind.
    killAllScripts();
    this.ranEmitter.dispose();
    void this.tuning.flush().catch(() => undefined);
  }
}
