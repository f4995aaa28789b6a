import * as vscode from 'vscode';
import type { SelectionInput } from '../../core/skills/draft/draftFacts';
import type { DraftScope } from '../../core/skills/draft/skillDraftSave';

/**
 * Answers for "Save This as a Skill" / "Save Selection as a Skill", so scripts and tests can run
 * the whole flow without the pickers. Every answer left out is asked for.
 */
export interface SaveAsSkillArgs {
  /** A past session; without it, the chat's current session, else a pick of recent ones. */
  readonly sessionId?: string;
  /** Text to draft from instead of a session (or of the editor's selection). */
  readonly selection?: string | SelectionInput;
  /** Draft with the configured model (default true); false fills in the template. */
  readonly useModel?: boolean;
  /** The answer to "Patch `x` instead?" when a skill overlaps strongly: true patches, false saves a new skill. */
  readonly patch?: boolean;
  readonly scope?: DraftScope;
  /** e.g. `devops/k8s`; `''` for the top level. */
  readonly category?: string;
  /** Replaces the draft in its editor before saving, as if the person had edited it. */
  readonly text?: string;
  /** The answer to "Save Skill": true saves the editor's text, false keeps it unsaved. */
  readonly confirm?: boolean;
  /** Open the saved SKILL.md and its preview (default true). */
  readonly open?: boolean;
}

export interface SaveAsSkillResult {
  readonly outcome: 'saved' | 'patched' | 'cancelled' | 'refused';
  /** What happened, or why not, in the words shown to the person. */
  readonly message: string;
  readonly name?: string;
  /** The SKILL.md written (saved or patched). */
  readonly file?: string;
  readonly source?: 'model' | 'template';
  readonly fallbackReason?: string;
  /** The lint and threat-scanner findings of the draft as drafted. */
  readonly findings?: { readonly errors: number; readonly warnings: number; readonly infos: number; readonly threats: number };
  /** The strongly overlapping skill, when there was one. */
  readonly overlap?: { readonly skillName: string; readonly score: number; readonly canPatch: boolean; readonly added: number; readonly reason?: string };
  /** The draft's text when it was not saved (it also stays in its editor once opened). */
  readonly draftText?: string;
}

function isSelection(value: unknown): value is string | SelectionInput {
  if (typeof value === 'string') return true;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const record = value as Record<string, unknown>;
  return typeof record.text === 'string' && ['file', 'languageId'].every((key) => record[key] === undefined || typeof record[key] === 'string');
}

/** Arguments from scripts and tests; anything else (a URI from a menu, nothing) means "ask". */
export function isSaveAsSkillArgs(value: unknown): value is SaveAsSkillArgs {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || value instanceof vscode.Uri) return false;
  const record = value as Record<string, unknown>;
  const strings = ['sessionId', 'category', 'text'].every((key) => record[key] === undefined || typeof record[key] === 'string');
  const booleans = ['useModel', 'patch', 'confirm', 'open'].every((key) => record[key] === undefined || typeof record[key] === 'boolean');
  const scope = record.scope === undefined || record.scope === 'project' || record.scope === 'user';
  return strings && booleans && scope && (record.selection === undefined || isSelection(record.selection));
}
