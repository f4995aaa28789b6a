import * as vscode from 'vscode';
import type { EditorChatContext } from '../../core/agent/editorChatTools';
import { EDITOR_CHAT_TOOLS, runEditorChatTool } from '../../core/agent/editorChatTools';
import type { DisposableStore } from '../../core/base/disposableStore';
import type { Logger } from '../../core/base/logger';
import { describeError } from '../../core/base/logger';

/** An AbortSignal that follows a VS Code cancellation token; dispose it when the work is done. */
export function signalOf(token: vscode.CancellationToken): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  if (token.isCancellationRequested) controller.abort();
  const listener = token.onCancellationRequested(() => controller.abort());
  return { signal: controller.signal, dispose: () => listener.dispose() };
}

/**
 * Registers Skillwright's read tools with VS Code's language-model API (contributed in
 * package.json), so agent mode and other participants can list and read skills, search sessions
 * and read memory. The context is read at each call: trust, folders and settings may have changed.
 * None of them writes, so none asks for confirmation.
 */
export function registerLanguageModelTools(store: DisposableStore, context: () => Promise<EditorChatContext>, logger: Logger): string[] {
  const registered: string[] = [];
  for (const tool of EDITOR_CHAT_TOOLS) {
    try {
      store.add(
        vscode.lm.registerTool<Record<string, unknown>>(tool.name, {
          prepareInvocation: (options) => ({ invocationMessage: tool.invocationMessage(options.input ?? {}) }),
          invoke: async (options, token) => {
            const cancel = signalOf(token);
            try {
              const text = await runEditorChatTool(tool.name, options.input, await context(), cancel.signal);
              return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(text)]);
            } finally {
              cancel.dispose();
            }
          },
        }),
      );
      registered.push(tool.name);
    } catch (error) {
      // An editor without the language-model API (or without the contribution) still gets everything else.
      logger.warn(`The language-model tool ${tool.name} could not be registered: ${describeError(error)}`);
    }
  }
  return registered;
}
