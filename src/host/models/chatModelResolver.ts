import * as vscode from 'vscode';
import type { ChatModel } from '../../core/llm/chatTypes';
import { SETTINGS } from '../../core/base/contributions';
import type { Logger } from '../../core/base/logger';
import { describeError } from '../../core/base/logger';
import type { ModelSetup } from './modelSetup';
import { VscodeLmChatModel } from './vscodeLmChatModel';

export type ResolvedModel = { readonly ok: true; readonly model: ChatModel; readonly label: string } | { readonly ok: false; readonly reason: string };

type Provider = 'auto' | 'openai' | 'vscode-lm';

function provider(): Provider {
  const value = vscode.workspace.getConfiguration(SETTINGS.section).get<string>(SETTINGS.modelProvider, 'auto');
  return value === 'openai' || value === 'vscode-lm' ? value : 'auto';
}

/** An OpenAI-compatible model at the configured endpoint; the provider module loads on first use. */
export async function openAiModel(setup: ModelSetup, modelName: string, logger: Logger): Promise<ChatModel> {
  const { baseUrl } = setup.settings();
  const apiKey = await setup.apiKey(baseUrl);
  const { OpenAiChatModel } = await import('../../providers/openAiChatModel');
  return new OpenAiChatModel({ baseUrl, model: modelName, ...(apiKey ? { apiKey } : {}), logger });
}

async function vscodeLmModel(logger: Logger): Promise<VscodeLmChatModel | undefined> {
  try {
    return await VscodeLmChatModel.select();
  } catch (error) {
    logger.info(`No VS Code language model: ${describeError(error)}`);
    return undefined;
  }
}

/**
 * The model for a new chat session, by the `skillwright.model.provider` setting: the configured
 * endpoint, a VS Code language model (e.g. Copilot's), or, for `auto`, the first that is there.
 */
export async function resolveChatModel(setup: ModelSetup, logger: Logger): Promise<ResolvedModel> {
  const which = provider();
  const { baseUrl, model } = setup.settings();
  const configured = baseUrl !== '' && model !== '';
  if (which !== 'vscode-lm' && configured) {
    return { ok: true, model: await openAiModel(setup, model, logger), label: `${model} · ${new URL(baseUrl).host}` };
  }
  if (which === 'openai') return { ok: false, reason: 'No OpenAI-compatible endpoint is configured.' };
  const lm = await vscodeLmModel(logger);
  if (lm) return { ok: true, model: lm, label: lm.id.replace(/^vscode-lm:/, '') };
  return {
    ok: false,
    reason: which === 'vscode-lm' ? 'No VS Code language model is available (install and sign in to an extension that provides one, such as GitHub Copilot Chat).' : 'No model is configured yet.',
  };
}

/** A cheaper model on the same endpoint named by a setting (summaries of hits, of compacted turns); none when empty. */
async function namedModel(setup: ModelSetup, logger: Logger, key: typeof SETTINGS.summaryModel | typeof SETTINGS.compactionModel): Promise<ChatModel | undefined> {
  const name = vscode.workspace.getConfiguration(SETTINGS.section).get<string>(key, '').trim();
  if (!name || !setup.settings().baseUrl) return undefined;
  return openAiModel(setup, name, logger);
}

/** The cheaper model that summarises session_search hits, when the setting names one. */
export function resolveSummaryModel(setup: ModelSetup, logger: Logger): Promise<ChatModel | undefined> {
  return namedModel(setup, logger, SETTINGS.summaryModel);
}

/** The cheaper model that writes compaction summaries, when the setting names one; else the chat model does. */
export function resolveCompactionModel(setup: ModelSetup, logger: Logger): Promise<ChatModel | undefined> {
  return namedModel(setup, logger, SETTINGS.compactionModel);
}
