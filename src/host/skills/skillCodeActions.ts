import * as vscode from 'vscode';
import type { SkillDiagnostics } from './skillDiagnostics';
import { toRange } from './skillDiagnostics';

/** Quick fixes for Skillwright's lint findings, taken from the findings themselves. */
export class SkillCodeActions implements vscode.CodeActionProvider {
  static readonly kinds = [vscode.CodeActionKind.QuickFix];

  constructor(private readonly diagnostics: SkillDiagnostics) {}

  provideCodeActions(document: vscode.TextDocument, _range: vscode.Range, context: vscode.CodeActionContext): vscode.CodeAction[] {
    const actions: vscode.CodeAction[] = [];
    const findings = this.diagnostics.findingsFor(document.uri);
    for (const diagnostic of context.diagnostics) {
      if (diagnostic.source !== 'Skillwright') continue;
      const finding = findings.find((f) => f.code === diagnostic.code && toRange(f.range).isEqual(diagnostic.range));
      for (const [i, fix] of (finding?.fixes ?? []).entries()) {
        const action = new vscode.CodeAction(fix.title, vscode.CodeActionKind.QuickFix);
        action.edit = new vscode.WorkspaceEdit();
        for (const edit of fix.edits) action.edit.replace(document.uri, toRange(edit.range), edit.newText);
        action.diagnostics = [diagnostic];
        action.isPreferred = i === 0;
        actions.push(action);
      }
    }
    return actions;
  }
}
