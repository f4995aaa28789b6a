/**
 * Built-in commands of the chat box, with the line the `/` menu shows. Typed alone (`/compact`)
 * they win over a skill of the same name, which `/name request` still runs. The core parses them
 * (core/agent/slashCommand.ts), the webview offers them: one list for both.
 */
export const CHAT_COMMANDS = {
  compact: 'Summarise older messages to free the context window',
} as const;

export type ChatCommand = keyof typeof CHAT_COMMANDS;

export const isChatCommand = (name: string): name is ChatCommand => Object.hasOwn(CHAT_COMMANDS, name);
