import * as path from 'node:path';
import * as vscode from 'vscode';
import { DisposableStore } from '../../core/base/disposableStore';
import type { Logger } from '../../core/base/logger';
import { describeError } from '../../core/base/logger';
import { lintSkillFile } from '../../core/skills/lint/lintRunner';
import type { LintFinding, Severity, TextRange } from '../../core/skills/model/skillTypes';
import { SKILL_FILE } from '../../core/skills/model/skillTypes';
import type { SkillService } from './skillService';

const TYPING_DEBOUNCE_MS = 200;
const BATCH = 40;

export function toRange(range: TextRange): vscode.Range {
  return new vscode.Range(range.startLine, range.startColumn, range.endLine, range.endColumn);
}

function toSeverity(severity: Severity): vscode.DiagnosticSeverity {
  switch (severity) {
    case 'error':
      return vscode.DiagnosticSeverity.Error;
    case 'warning':
      return vscode.DiagnosticSeverity.Warning;
    case 'info':
      return vscode.DiagnosticSeverity.Information;
  }
}

/**
 * Lint findings in the Problems panel for every SKILL.md the index knows, from the editor buffer
 * while a file is open (as you type) and from the disk otherwise.
 */
export class SkillDiagnostics implements vscode.Disposable {
  private readonly store = new DisposableStore();
  private readonly collection = vscode.languages.createDiagnosticCollection('skillwright');
  /** Findings behind the current diagnostics, for quick fixes. */
  private readonly findings = new Map<string, readonly LintFinding[]>();
  private readonly typingTimers = new Map<string, ReturnType<typeof setTimeout>>();
  private generation = 0;

  constructor(
    private readonly skills: SkillService,
    private readonly logger: Logger,
  ) {
    this.store.add(this.collection);
    this.store.add(skills.onDidChange((change) => void this.onIndexChange([...change.added, ...change.changed].map((r) => r.file), change.removed.map((r) => r.file))));
    this.store.add(vscode.workspace.onDidChangeTextDocument((event) => this.onTyping(event.document)));
    this.store.add(vscode.workspace.onDidOpenTextDocument((document) => this.onTyping(document)));
    this.store.add(
      vscode.workspace.onDidCloseTextDocument((document) => {
        // An unsaved buffer's findings no longer apply once it is closed: go back to the disk.
        if (this.isSkillFile(document.uri)) void this.lintFile(document.uri.fsPath);
      }),
    );
    this.store.addCallback(() => this.typingTimers.forEach((timer) => clearTimeout(timer)));
  }

  /** Findings for a file, as last published. */
  findingsFor(uri: vscode.Uri): readonly LintFinding[] {
    return this.findings.get(uri.fsPath) ?? [];
  }

  /** Lints every known skill, in small batches so the extension host stays responsive. */
  async lintAll(): Promise<void> {
    await this.skills.ready;
    const generation = ++this.generation;
    const files = this.skills.skillIndex.all().map((record) => record.file);
    for (const file of [...this.findings.keys()]) {
      if (!files.includes(file)) this.clear(file);
    }
    for (let i = 0; i < files.length; i += BATCH) {
      if (generation !== this.generation || this.store.isDisposed) return;
      await Promise.all(files.slice(i, i + BATCH).map((file) => this.lintFile(file)));
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  dispose(): void {
    this.store.dispose();
  }

  private async onIndexChange(changed: string[], removed: string[]): Promise<void> {
    for (const file of removed) this.clear(file);
    if (changed.length === 0 && removed.length === 0) {
      await this.lintAll();
      return;
    }
    for (const file of changed) await this.lintFile(file);
  }

  private isSkillFile(uri: vscode.Uri): boolean {
    if (uri.scheme !== 'file' || path.basename(uri.fsPath) !== SKILL_FILE) return false;
    return this.skills.skillIndex?.all().some((record) => record.file === uri.fsPath) ?? false;
  }

  private onTyping(document: vscode.TextDocument): void {
    if (!this.isSkillFile(document.uri)) return;
    const key = document.uri.fsPath;
    const existing = this.typingTimers.get(key);
    if (existing) clearTimeout(existing);
    this.typingTimers.set(
      key,
      setTimeout(() => {
        this.typingTimers.delete(key);
        void this.lintFile(key, document.getText());
      }, TYPING_DEBOUNCE_MS),
    );
  }

  private async lintFile(file: string, text?: string): Promise<void> {
    const open = vscode.workspace.textDocuments.find((doc) => doc.uri.fsPath === file && doc.uri.scheme === 'file');
    const source = text ?? (open?.isDirty ? open.getText() : undefined);
    try {
      const findings = await lintSkillFile({ file, ...(source !== undefined ? { text: source } : {}) }, this.skills.fs, this.skills.skillIndex);
      this.publish(file, findings);
    } catch (error) {
      this.logger.warn(`Could not lint ${file}: ${describeError(error)}`);
    }
  }

  private publish(file: string, findings: readonly LintFinding[]): void {
    this.findings.set(file, findings);
    this.collection.set(
      vscode.Uri.file(file),
      findings.map((finding) => {
        const diagnostic = new vscode.Diagnostic(toRange(finding.range), finding.message, toSeverity(finding.severity));
        diagnostic.code = finding.code;
        diagnostic.source = 'Skillwright';
        return diagnostic;
      }),
    );
  }

  private clear(file: string): void {
    this.findings.delete(file);
    this.collection.delete(vscode.Uri.file(file));
  }
}
