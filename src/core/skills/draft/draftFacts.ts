/** The facts a skill draft is written from; shared by the transcript and selection readers. */

export type ToolKind = 'read' | 'search' | 'change' | 'command' | 'skill' | 'other';

export interface ToolCallFact {
  readonly tool: string;
  readonly kind: ToolKind;
  /** The telling argument: the path, command, query or skill name; '' when the arguments were unreadable. */
  readonly detail: string;
  /** false: the tool reported a failure (for run_command: a non-zero exit or a timeout); undefined: no readable result. */
  readonly ok: boolean | undefined;
  readonly error?: string;
}

export interface FileFact {
  /** As the tool was given it: relative to the workspace folder. */
  readonly path: string;
  /** Edited or written (successfully), not only read. */
  readonly changed: boolean;
}

export interface CommandFact {
  readonly command: string;
  /** The outcome of the last run of this command. */
  readonly ok: boolean | undefined;
  readonly runs: number;
  /** True when a run failed before a later run succeeded. */
  readonly failedFirst: boolean;
}

export interface ErrorFact {
  /** The call that failed: the command of a run_command, else the tool and its telling argument (`edit_file src/a.ts`). */
  readonly during: string;
  readonly message: string;
  /** What the assistant said right after the failure (first sentence). */
  readonly explanation?: string;
  /** How the same action came to succeed later; absent when it never did. */
  readonly resolution?: Resolution;
}

export interface Resolution {
  /** Files changed between the failure and the success. */
  readonly changed: readonly string[];
  /** Without changes: the other actions in between (`read_file src/a.ts`). */
  readonly actions: readonly string[];
  /** The action that then succeeded, shown like `during`. */
  readonly succeeded: string;
}

export interface SelectionInput {
  readonly text: string;
  /** Workspace-relative path of the file the text was selected in. */
  readonly file?: string;
  /** VS Code language id, e.g. `shellscript` or `markdown`. */
  readonly languageId?: string;
}

export interface TranscriptFacts {
  readonly origin: 'session' | 'messages' | 'selection';
  readonly title?: string;
  /** The user's messages, without the skill suggestions added to them, in order. */
  readonly requests: readonly string[];
  readonly toolCalls: readonly ToolCallFact[];
  readonly files: readonly FileFact[];
  readonly commands: readonly CommandFact[];
  readonly errors: readonly ErrorFact[];
  /** Skills loaded with skill_view. */
  readonly skillsUsed: readonly string[];
  /** The last reply's text (without a "Save as skill:" line), or a note that the turn was cut short. */
  readonly outcome?: string;
  /** Markdown list items of the last reply: a model's own summary of the steps. */
  readonly outcomeSteps: readonly string[];
  /** The name the agent proposed in a "Save as skill: <name>" line. */
  readonly suggestedName?: string;
  readonly selection?: SelectionInput;
  /** How many of each were left out by the caps. */
  readonly omitted: { readonly requests: number; readonly toolCalls: number; readonly files: number; readonly commands: number; readonly errors: number };
}
