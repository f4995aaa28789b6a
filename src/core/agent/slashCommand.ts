import type { ChatCommand } from '../../shared/system/chatCommands';
import { isChatCommand } from '../../shared/system/chatCommands';

/**
 * `/skill-name rest of the message` in the chat box invokes a skill explicitly: the model is told
 * to load and follow it. Text that merely starts with a slash (a path such as `/etc/hosts`) is
 * sent as typed when no skill has that name and it does not look like a skill name.
 */
export type SlashResult =
  | { readonly ok: true; readonly text: string; readonly skill?: string; readonly command?: undefined }
  | { readonly ok: true; readonly command: ChatCommand; readonly text?: undefined; readonly skill?: undefined }
  | { readonly ok: false; readonly error: string };

const SLASH = /^\/([a-z0-9][a-z0-9-]{0,63})(?:\s+([\s\S]*))?$/;

export function parseSlashCommand(typed: string, exists: (name: string) => boolean): SlashResult {
  // Only a slash in the first column invokes a skill; a leading space is the way to send "/…" as text.
  const match = SLASH.exec(typed.trimEnd());
  if (!match) return { ok: true, text: typed };
  const name = match[1] ?? '';
  const rest = (match[2] ?? '').trim();
  if (rest === '' && isChatCommand(name)) return { ok: true, command: name };
  if (!exists(name)) {
    return { ok: false, error: `No skill is named "${name}". Type / to pick one from the list, or put a space before the slash to send the text as it is.` };
  }
  const request = rest || 'Apply it to the current workspace.';
  return {
    ok: true,
    skill: name,
    text: `Use the skill "${name}": load it with skill_view first, then follow it.\n\n${request}`,
  };
}
