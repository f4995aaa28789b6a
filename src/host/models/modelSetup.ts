import * as vscode from 'vscode';
import { ModelError } from '../../core/llm/chatTypes';
import { SETTINGS } from '../../core/base/contributions';
import type { Logger } from '../../core/base/logger';
import { describeError } from '../../core/base/logger';
import type { ModelPreset } from '../../providers/modelPresets';
import { MODEL_PRESETS, presetForBaseUrl } from '../../providers/modelPresets';

/** Values the command accepts from scripts and tests instead of asking. */
export interface ModelSetupArgs {
  readonly baseUrl?: string;
  readonly model?: string;
  /** An empty string removes the stored key. */
  readonly apiKey?: string;
  /** Skip the connection test at the end. */
  readonly skipTest?: boolean;
  /** A preset id (the chat's setup card): skips the provider question. */
  readonly preset?: string;
}

export type ConnectionResult = { readonly ok: true; readonly model: string; readonly latencyMs: number } | { readonly ok: false; readonly error: ModelError };

function normalizeBaseUrl(value: string): string {
  return value.trim().replace(/\/+$/, '');
}

/** API keys live in SecretStorage, one per endpoint, never in settings, logs or sessions. */
export function secretKeyFor(baseUrl: string): string {
  return `skillwright.apiKey:${normalizeBaseUrl(baseUrl).toLowerCase()}`;
}

/** "Configure Model" and "Test Connection": guided set-up of an OpenAI-compatible endpoint. */
export class ModelSetup {
  constructor(
    private readonly secrets: vscode.SecretStorage,
    private readonly logger: Logger,
  ) {}

  settings(): { baseUrl: string; model: string } {
    const config = vscode.workspace.getConfiguration(SETTINGS.section);
    return { baseUrl: normalizeBaseUrl(config.get<string>(SETTINGS.modelBaseUrl, '')), model: config.get<string>(SETTINGS.modelName, '').trim() };
  }

  /** The stored key for the endpoint, else OPENAI_API_KEY from the environment. */
  async apiKey(baseUrl: string): Promise<string | undefined> {
    const stored = await this.secrets.get(secretKeyFor(baseUrl));
    return stored || process.env.OPENAI_API_KEY || undefined;
  }

  async configure(args?: ModelSetupArgs): Promise<boolean> {
    const current = this.settings();
    const chosen = MODEL_PRESETS.find((p) => p.id === args?.preset);
    const baseUrl = args?.baseUrl !== undefined ? normalizeBaseUrl(args.baseUrl) : await this.askBaseUrl(current.baseUrl, chosen);
    if (!baseUrl) return false;
    const preset = presetForBaseUrl(baseUrl);
    const apiKey = args?.apiKey !== undefined ? args.apiKey : await this.askKey(baseUrl, preset);
    if (apiKey === undefined) return false;
    if (apiKey === '') {
      if (args?.apiKey === '') await this.secrets.delete(secretKeyFor(baseUrl));
    } else {
      await this.secrets.store(secretKeyFor(baseUrl), apiKey);
    }
    const model = args?.model !== undefined ? args.model.trim() : await this.askModel(baseUrl, current.model);
    if (!model) return false;
    const config = vscode.workspace.getConfiguration(SETTINGS.section);
    await config.update(SETTINGS.modelBaseUrl, baseUrl, vscode.ConfigurationTarget.Global);
    await config.update(SETTINGS.modelName, model, vscode.ConfigurationTarget.Global);
    this.logger.info(`Model configured: ${model} at ${baseUrl}`);
    if (!args?.skipTest) await this.testAndReport();
    return true;
  }

  async testConnection(): Promise<ConnectionResult> {
    const { baseUrl, model } = this.settings();
    const { testConnection } = await import('../../providers/modelConnection');
    const apiKey = await this.apiKey(baseUrl);
    const verdict = await testConnection({ baseUrl, model, ...(apiKey ? { apiKey } : {}), logger: this.logger });
    return verdict.ok ? { ok: true, model: verdict.model, latencyMs: verdict.latencyMs } : { ok: false, error: verdict.error };
  }

  /** Runs the test and tells the person the verdict, with the action that fixes a failure. */
  async testAndReport(): Promise<ConnectionResult> {
    const { baseUrl, model } = this.settings();
    if (!baseUrl || !model) {
      const error = new ModelError('bad_request', 'No model is configured yet.', 'Run Skillwright: Configure Model.');
      void this.offerConfigure(error.message);
      return { ok: false, error };
    }
    const result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Skillwright: testing ${model}…` },
      () => this.testConnection(),
    );
    if (result.ok) {
      void vscode.window.showInformationMessage(`Skillwright: ${result.model} answered in ${Math.round(result.latencyMs)} ms.`);
    } else {
      this.logger.warn(`Connection test failed (${result.error.kind}): ${result.error.message}`);
      void this.offerConfigure(`${result.error.message} ${result.error.advice}`);
    }
    return result;
  }

  private async offerConfigure(message: string): Promise<void> {
    const choice = await vscode.window.showWarningMessage(`Skillwright: ${message}`, 'Configure Model', 'Show Logs');
    if (choice === 'Configure Model') await vscode.commands.executeCommand('skillwright.configureModel');
    if (choice === 'Show Logs') await vscode.commands.executeCommand('skillwright.showLogs');
  }

  private async askBaseUrl(current: string, chosen?: ModelPreset): Promise<string | undefined> {
    const items: (vscode.QuickPickItem & { preset: ModelPreset })[] = MODEL_PRESETS.map((preset) => ({
      label: preset.label,
      description: preset.baseUrl || 'enter the URL',
      detail: preset.needsKey ? 'needs an API key' : 'no key needed',
      preset,
    }));
    const picked = chosen
      ? { preset: chosen }
      : await vscode.window.showQuickPick(items, { title: 'Skillwright: Configure Model (1/3): provider', placeHolder: 'Where does the model run?', ignoreFocusOut: true });
    if (!picked) return undefined;
    const value = await vscode.window.showInputBox({
      title: 'Skillwright: Configure Model (2/3): base URL',
      prompt: 'OpenAI-compatible base URL, usually ending in /v1',
      value: picked.preset.baseUrl || current,
      ignoreFocusOut: true,
      validateInput: (text) => {
        try {
          const url = new URL(text.trim());
          return url.protocol === 'http:' || url.protocol === 'https:' ? undefined : 'Use an http:// or https:// URL.';
        } catch {
          return 'Enter a URL such as https://api.openai.com/v1';
        }
      },
    });
    return value ? normalizeBaseUrl(value) : undefined;
  }

  private async askKey(baseUrl: string, preset: ModelPreset | undefined): Promise<string | undefined> {
    const stored = await this.secrets.get(secretKeyFor(baseUrl));
    const value = await vscode.window.showInputBox({
      title: 'Skillwright: Configure Model: API key',
      prompt: stored
        ? 'A key is stored for this endpoint. Leave empty to keep it, or paste a new one.'
        : preset?.needsKey === false
          ? 'Local servers usually need no key: leave empty.'
          : 'Paste the API key. It is kept in VS Code\'s secret storage, never in settings.',
      password: true,
      ignoreFocusOut: true,
    });
    return value === undefined ? undefined : value.trim();
  }

  private async askModel(baseUrl: string, current: string): Promise<string | undefined> {
    let models: string[] = [];
    try {
      const { listModels } = await import('../../providers/modelConnection');
      const apiKey = await this.apiKey(baseUrl);
      models = await listModels({ baseUrl, ...(apiKey ? { apiKey } : {}), logger: this.logger });
    } catch (error) {
      this.logger.info(`Could not list models at ${baseUrl}: ${describeError(error)}`);
    }
    if (models.length > 0) {
      const picked = await vscode.window.showQuickPick(
        models.map((id) => ({ label: id, ...(id === current ? { description: 'current' } : {}) })),
        { title: 'Skillwright: Configure Model (3/3): model', placeHolder: 'Pick the model', ignoreFocusOut: true },
      );
      return picked?.label;
    }
    return vscode.window.showInputBox({
      title: 'Skillwright: Configure Model (3/3): model',
      prompt: 'The server did not list its models: type the model name.',
      value: current,
      ignoreFocusOut: true,
    });
  }
}
