import * as path from 'node:path';
import { SKILL_FILE } from '../../core/skills/model/skillTypes';

/**
 * What the preview webview keeps with setState (src/webview/preview/main.ts) and VS Code hands back
 * to the panel serializer after a window reload. Only `file` matters to the host: the model is
 * rebuilt from the file, so a stale or tampered `preview` never reaches the host's logic.
 */
export interface PreviewWebviewState {
  readonly file?: string;
}

/**
 * The SKILL.md to restore the preview for, or undefined when the state cannot name one (a webview
 * from an older version, a state that was never set, anything that is not an absolute SKILL.md path).
 */
export function restorableFile(state: unknown): string | undefined {
  if (typeof state !== 'object' || state === null) return undefined;
  const file = (state as { file?: unknown }).file;
  if (typeof file !== 'string' || file.length === 0 || file.length > 4_096) return undefined;
  if (!path.isAbsolute(file) || path.basename(file) !== SKILL_FILE) return undefined;
  return path.normalize(file);
}
