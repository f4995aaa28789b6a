import * as vscode from 'vscode';
import type { ChatMessage, ChatModel, ChatRequest, ModelEvent, ToolCall } from '../../core/llm/chatTypes';
import { ModelError } from '../../core/llm/chatTypes';

/**
 * The VS Code Language Model API (e.g. Copilot's models) as a ChatModel: zero configuration for
 * people who already have models in VS Code. The API has no system role and no token usage, so
 * the system prompt goes first as a user message and usage is reported as unknown (zero).
 */
export class VscodeLmChatModel implements ChatModel {
  readonly id: string;

  constructor(private readonly model: vscode.LanguageModelChat) {
    this.id = `vscode-lm:${model.vendor}/${model.id}`;
  }

  /** The model's context window as VS Code reports it: the "server" figure for compaction. */
  get maxInputTokens(): number {
    return this.model.maxInputTokens;
  }

  /** The first model VS Code offers (optionally of one family), or undefined when there is none. */
  static async select(family?: string): Promise<VscodeLmChatModel | undefined> {
    const models = await vscode.lm.selectChatModels(family ? { family } : {});
    return models[0] ? new VscodeLmChatModel(models[0]) : undefined;
  }

  async *stream(request: ChatRequest): AsyncGenerator<ModelEvent> {
    const source = new vscode.CancellationTokenSource();
    const onAbort = () => source.cancel();
    request.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const options: vscode.LanguageModelChatRequestOptions = {
        justification: 'Skillwright uses this model for its agent panel.',
        ...(request.tools && request.tools.length > 0
          ? { tools: request.tools.map((tool) => ({ name: tool.name, description: tool.description, inputSchema: tool.parameters })) }
          : {}),
      };
      let response: vscode.LanguageModelChatResponse;
      try {
        response = await this.model.sendRequest(toLmMessages(request.messages), options, source.token);
      } catch (error) {
        throw toModelError(error);
      }
      const calls: ToolCall[] = [];
      try {
        for await (const part of response.stream) {
          if (part instanceof vscode.LanguageModelTextPart) {
            yield { type: 'text', delta: part.value };
          } else if (part instanceof vscode.LanguageModelToolCallPart) {
            calls.push({ id: part.callId, name: part.name, arguments: JSON.stringify(part.input ?? {}) });
          }
        }
      } catch (error) {
        throw request.signal?.aborted ? new ModelError('aborted', 'Stopped.', 'Send the message again to continue.') : toModelError(error);
      }
      if (request.signal?.aborted) throw new ModelError('aborted', 'Stopped.', 'Send the message again to continue.');
      for (const call of calls) yield { type: 'tool_call', call };
      yield { type: 'usage', usage: { promptTokens: 0, completionTokens: 0, cachedTokens: 0 } };
      yield { type: 'done', finishReason: calls.length > 0 ? 'tool_calls' : 'stop' };
    } finally {
      request.signal?.removeEventListener('abort', onAbort);
      source.dispose();
    }
  }
}

/** Maps our messages to the LM API's, which knows only user and assistant turns. */
export function toLmMessages(messages: readonly ChatMessage[]): vscode.LanguageModelChatMessage[] {
  const out: vscode.LanguageModelChatMessage[] = [];
  for (const message of messages) {
    switch (message.role) {
      case 'system':
      case 'user':
        out.push(vscode.LanguageModelChatMessage.User(message.content));
        break;
      case 'assistant': {
        const parts: (vscode.LanguageModelTextPart | vscode.LanguageModelToolCallPart)[] = [];
        if (message.content) parts.push(new vscode.LanguageModelTextPart(message.content));
        for (const call of message.toolCalls ?? []) parts.push(new vscode.LanguageModelToolCallPart(call.id, call.name, parseInput(call.arguments)));
        out.push(vscode.LanguageModelChatMessage.Assistant(parts.length > 0 ? parts : ''));
        break;
      }
      case 'tool':
        out.push(vscode.LanguageModelChatMessage.User([new vscode.LanguageModelToolResultPart(message.toolCallId, [new vscode.LanguageModelTextPart(message.content)])]));
        break;
    }
  }
  return out;
}

function parseInput(text: string): object {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' ? value : { value };
  } catch {
    return { raw: text };
  }
}

function toModelError(error: unknown): ModelError {
  if (error instanceof vscode.LanguageModelError) {
    if (error.code === vscode.LanguageModelError.NoPermissions.name) {
      return new ModelError('auth', error.message, 'Allow Skillwright to use this model when VS Code asks, or choose an OpenAI-compatible endpoint with Configure Model.');
    }
    if (error.code === vscode.LanguageModelError.NotFound.name) {
      return new ModelError('not_found', error.message, 'The model is gone; pick another one with Configure Model.');
    }
    if (error.code === vscode.LanguageModelError.Blocked.name) {
      return new ModelError('rate_limit', error.message, 'The model refused the request for now (quota or policy); wait and retry.');
    }
  }
  if (error instanceof vscode.CancellationError) return new ModelError('aborted', 'Stopped.', 'Send the message again to continue.');
  return new ModelError('unknown', error instanceof Error ? error.message : String(error), 'Retry; the log has details.');
}
