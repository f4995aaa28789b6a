/**
 * The context variables a skill may be given when it runs (docs/execution.md): what binding,
 * the Run Skill form and the lint's `${context.x}` check all read.
 */
export const CONTEXT_NAMES = ['workspaceFolder', 'activeFile', 'selection', 'languageId', 'userLanguage', 'sessionId'] as const;
export type ContextName = (typeof CONTEXT_NAMES)[number];

/** How a message names each variable. */
export const CONTEXT_LABELS: Readonly<Record<ContextName, string>> = {
  workspaceFolder: 'the workspace folder',
  activeFile: 'the active file',
  selection: 'the selection',
  languageId: "the active file's language",
  userLanguage: "the user's language",
  sessionId: 'the session id',
};

const snakeCase = (name: string): string => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** A variable by either spelling: `activeFile` or `active_file`. */
export const CONTEXT_BY_SPELLING: ReadonlyMap<string, ContextName> = new Map(CONTEXT_NAMES.flatMap((name): [string, ContextName][] => [[name, name], [snakeCase(name), name]]));

/** A schema default that asks for a context variable or a declared environment variable. */
export const CONTEXT_DEFAULT = /^\$\{context\.([^}]*)\}$/;
export const ENV_DEFAULT = /^\$\{env:([^}]*)\}$/;

export const isPlaceholder = (value: unknown): boolean => typeof value === 'string' && (CONTEXT_DEFAULT.test(value) || ENV_DEFAULT.test(value));
