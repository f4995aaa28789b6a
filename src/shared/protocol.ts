/**
 * The host↔webview protocol. Every message is a discriminated union member named `area/verb`.
 * Both sides validate what they receive with the parsers below: a malformed message is reported
 * and dropped, never acted on. Keep this file free of `vscode` and DOM types: both sides import it.
 */

export type Scope = 'project' | 'user' | 'other';

export interface SkillRootStatus {
  readonly label: string;
  readonly path: string;
  readonly scope: Scope;
  readonly exists: boolean;
  readonly folder?: string;
  /** Skills found under this root (all copies, shadowed ones included). */
  readonly skillCount?: number;
}

export interface SkillsSummary {
  readonly total: number;
  readonly active: number;
  readonly shadowed: number;
  readonly hidden: number;
  readonly disabled: number;
  readonly catalog: {
    readonly tokens: number;
    readonly budget: number;
    readonly included: number;
    readonly shortened: number;
    readonly collapsed: number;
    readonly omitted: readonly string[];
  };
  /** Settings that could not be used and bounds that were hit. */
  readonly problems: readonly string[];
}

export interface PanelStatus {
  readonly extensionVersion: string;
  readonly vscodeVersion: string;
  readonly workspaceFolders: readonly { readonly name: string; readonly path: string }[];
  readonly trusted: boolean;
  readonly skillRoots: readonly SkillRootStatus[];
  readonly model: {
    readonly configured: boolean;
    readonly baseUrl: string;
    readonly model: string;
    readonly provider?: string;
    readonly advice: string;
  };
  /** Absent while the skill index is still loading. */
  readonly skills?: SkillsSummary;
}

/** Messages the webview sends to the host. */
export type WebviewToHost =
  | { readonly type: 'panel/ready' }
  | { readonly type: 'status/refresh' }
  | { readonly type: 'logs/show' }
  | { readonly type: 'settings/open' }
  | { readonly type: 'model/configure' }
  | { readonly type: 'model/test' };

/** Messages the host sends to the webview. */
export type HostToWebview =
  | { readonly type: 'status/update'; readonly status: PanelStatus }
  | { readonly type: 'panel/error'; readonly message: string };

export type ParseResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: string };

type Obj = Record<string, unknown>;

function isObj(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function fail<T>(error: string): ParseResult<T> {
  return { ok: false, error };
}

const WEBVIEW_TYPES: ReadonlySet<string> = new Set<WebviewToHost['type']>([
  'panel/ready',
  'status/refresh',
  'logs/show',
  'settings/open',
  'model/configure',
  'model/test',
]);

export function parseWebviewMessage(raw: unknown): ParseResult<WebviewToHost> {
  if (!isObj(raw)) {
    return fail('message is not an object');
  }
  const type = raw.type;
  if (typeof type !== 'string') {
    return fail('message has no string "type"');
  }
  if (!WEBVIEW_TYPES.has(type)) {
    return fail(`unknown message type "${type.slice(0, 60)}"`);
  }
  // None of the current webview messages carries a payload; extra fields are ignored.
  return { ok: true, value: { type } as WebviewToHost };
}

function isString(value: unknown): value is string {
  return typeof value === 'string';
}

function parseStatus(raw: unknown): PanelStatus | string {
  if (!isObj(raw)) return 'status is not an object';
  const { extensionVersion, vscodeVersion, workspaceFolders, trusted, skillRoots, model } = raw;
  if (!isString(extensionVersion) || !isString(vscodeVersion)) return 'status versions must be strings';
  if (typeof trusted !== 'boolean') return 'status.trusted must be a boolean';
  if (!Array.isArray(workspaceFolders) || !workspaceFolders.every((f) => isObj(f) && isString(f.name) && isString(f.path))) {
    return 'status.workspaceFolders is malformed';
  }
  const scopes = new Set(['project', 'user', 'other']);
  if (
    !Array.isArray(skillRoots) ||
    !skillRoots.every(
      (r) =>
        isObj(r) &&
        isString(r.label) &&
        isString(r.path) &&
        isString(r.scope) &&
        scopes.has(r.scope) &&
        typeof r.exists === 'boolean' &&
        (r.folder === undefined || isString(r.folder)) &&
        (r.skillCount === undefined || isCount(r.skillCount)),
    )
  ) {
    return 'status.skillRoots is malformed';
  }
  if (
    !isObj(model) ||
    typeof model.configured !== 'boolean' ||
    !isString(model.baseUrl) ||
    !isString(model.model) ||
    !isString(model.advice) ||
    (model.provider !== undefined && !isString(model.provider))
  ) {
    return 'status.model is malformed';
  }
  if (raw.skills !== undefined && !isSkillsSummary(raw.skills)) {
    return 'status.skills is malformed';
  }
  return raw as unknown as PanelStatus;
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

function isSkillsSummary(value: unknown): value is SkillsSummary {
  if (!isObj(value) || !isObj(value.catalog)) return false;
  const counts = [value.total, value.active, value.shadowed, value.hidden, value.disabled];
  const c = value.catalog;
  return (
    counts.every(isCount) &&
    [c.tokens, c.budget, c.included, c.shortened, c.collapsed].every(isCount) &&
    Array.isArray(c.omitted) &&
    c.omitted.every(isString) &&
    Array.isArray(value.problems) &&
    value.problems.every(isString)
  );
}

export function parseHostMessage(raw: unknown): ParseResult<HostToWebview> {
  if (!isObj(raw) || typeof raw.type !== 'string') {
    return fail('message has no string "type"');
  }
  switch (raw.type) {
    case 'status/update': {
      const status = parseStatus(raw.status);
      return typeof status === 'string' ? fail(status) : { ok: true, value: { type: 'status/update', status } };
    }
    case 'panel/error':
      return isString(raw.message) ? { ok: true, value: { type: 'panel/error', message: raw.message } } : fail('panel/error needs a message');
    default:
      return fail(`unknown message type "${raw.type.slice(0, 60)}"`);
  }
}

/** Compile-time exhaustiveness guard for switches over message unions. */
export function assertNever(value: never): never {
  throw new Error(`Unhandled message: ${JSON.stringify(value)}`);
}
