/**
 * The shapes every part of the executor shares: what a run returns, what a trace records, and the
 * ports through which processes and HTTP calls reach the real world. The host, the CLI and the
 * tests implement the ports with the real thing (child processes, fetch).
 */

/** What `skill_run`, Run Skill… and `skillwright run-skill` all return. */
export interface RunResult {
  readonly success: boolean;
  readonly output: unknown;
  readonly error: string | null;
  readonly trace_id: string;
}

/** Why an attempt failed; `retry_on` in a workflow step names these. */
export const ERROR_KINDS = [
  'timeout',
  'exit_code',
  'invalid_output',
  'http_status',
  'network',
  'validation',
  'permission',
  'not_found',
  'aborted',
  'spawn',
  'condition',
] as const;
export type ErrorKind = (typeof ERROR_KINDS)[number];

/** The errors worth trying again by default: the ones a second attempt can fix. */
export const DEFAULT_RETRY_ON: readonly ErrorKind[] = ['timeout', 'network', 'http_status', 'exit_code'];

/** The result of one level-0 attempt, before the trace and the feedback see it. */
export type AttemptOutcome =
  | { readonly ok: true; readonly output: unknown; readonly tokens?: TokenCount }
  | { readonly ok: false; readonly error: string; readonly kind: ErrorKind; readonly retryAfterMs?: number };

export interface TokenCount {
  readonly input: number;
  readonly output: number;
}

// ---- Traces -------------------------------------------------------------------------------------

export type StepStatus = 'success' | 'retried_success' | 'failed' | 'skipped' | 'fallback';

export interface TraceAttempt {
  /** Milliseconds since the run started. */
  readonly offsetMs: number;
  readonly durationMs: number;
  readonly error?: string;
  readonly kind?: ErrorKind;
}

/** One step of a run: the single job of a level-0 run, or a workflow step (nested runs flatten in with `parent`). */
export interface TraceStep {
  /** Unique within the trace: `main` for a level-0 run, the step id (prefixed by its parents') in a workflow. */
  readonly id: string;
  /** The enclosing step of a nested workflow, when any. */
  readonly parent?: string;
  readonly skill: string;
  readonly version?: string;
  readonly kind: SkillKind | 'unknown';
  readonly status: StepStatus;
  readonly attempts: readonly TraceAttempt[];
  /** Milliseconds since the run started. */
  readonly offsetMs: number;
  readonly durationMs: number;
  readonly outputBytes: number;
  readonly tokens?: TokenCount;
  readonly error?: string;
  /** Why a skipped step was skipped. */
  readonly reason?: string;
  /** The skill that ran instead, for `fallback`. */
  readonly fallbackSkill?: string;
}

export interface RunTrace {
  readonly type: 'trace';
  readonly trace_id: string;
  readonly skill: string;
  readonly version?: string;
  readonly kind: SkillKind;
  readonly success: boolean;
  readonly error?: string;
  /** ISO time the run started. */
  readonly started: string;
  readonly durationMs: number;
  readonly outputBytes: number;
  readonly steps: readonly TraceStep[];
  /** Skills the run actually called, fallbacks included, without the skill itself. */
  readonly calledSkills: readonly string[];
  /** Set when the output did not match `output_schema`: what did not match. */
  readonly drift?: string;
  readonly sessionId?: string;
  /** Where the run came from: the model's tool, the Run Skill form, the CLI, a test-skill example. */
  readonly origin: RunOrigin;
  readonly tokens?: TokenCount;
}

export type RunOrigin = 'chat' | 'palette' | 'cli' | 'test';

export type SkillKind = 'instructions' | 'script' | 'http' | 'workflow';

// ---- Ports --------------------------------------------------------------------------------------

export interface ScriptRequest {
  /** Program and its first arguments, e.g. [`python3`, `/skill/scripts/run.py`]. */
  readonly command: readonly string[];
  readonly cwd: string;
  /** Written to stdin, which is then closed. */
  readonly stdin: string;
  /** The whole environment of the process: nothing is inherited beyond this. */
  readonly env: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  /** Stdout beyond this is dropped and the process killed. */
  readonly maxStdoutBytes: number;
  /** The last this many bytes of stderr are kept. */
  readonly stderrTailBytes: number;
  /** Aborting kills the process and everything it started (its process group). */
  readonly signal?: AbortSignal;
}

export interface ScriptOutcome {
  /** Null when ended by a signal or never started. */
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly stdout: string;
  /** True when stdout passed maxStdoutBytes (the process was then killed). */
  readonly stdoutOverflow: boolean;
  readonly stderrTail: string;
  readonly timedOut: boolean;
  readonly aborted: boolean;
  readonly durationMs: number;
  /** Set when the process could not be started; `code` is Node's (`ENOENT` for a missing program). */
  readonly spawnError?: { readonly code?: string; readonly message: string };
}

export interface ScriptPort {
  run(request: ScriptRequest): Promise<ScriptOutcome>;
}

export interface HttpRequest {
  readonly url: string;
  readonly body: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  /** Replies longer than this are cut off and reported as too large. */
  readonly maxBytes: number;
  /** Redirects followed at most; each target must be http(s). */
  readonly maxRedirects: number;
  readonly signal?: AbortSignal;
}

export type HttpOutcome =
  | { readonly kind: 'reply'; readonly status: number; readonly body: string; readonly retryAfter?: string; readonly finalUrl: string }
  | { readonly kind: 'too_large'; readonly status: number; readonly limit: number }
  | { readonly kind: 'timeout' }
  | { readonly kind: 'aborted' }
  | { readonly kind: 'bad_redirect'; readonly location: string; readonly reason: string }
  | { readonly kind: 'network'; readonly message: string };

export interface HttpPort {
  post(request: HttpRequest): Promise<HttpOutcome>;
}

/** Waits, or ends early when the signal aborts; tests may pass a faster clock. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/** The context variables binding may use (explicit arguments win over them, schema defaults lose). */
export interface RunContextVariables {
  readonly workspaceFolder?: string;
  readonly activeFile?: string;
  readonly selection?: string;
  readonly languageId?: string;
  readonly userLanguage?: string;
  readonly sessionId?: string;
}

/** What a person is asked before a script runs or an endpoint is called. */
export interface RunApprovalRequest {
  readonly skill: string;
  readonly kind: 'script' | 'http';
  /** The command line or the URL, as shown on the card. */
  readonly target: string;
  readonly arguments: unknown;
  /** The skill's declared permissions, as written. */
  readonly permissions: unknown;
}

export type RunApproval = (request: RunApprovalRequest) => Promise<{ readonly allowed: true } | { readonly allowed: false; readonly reason: string }>;
