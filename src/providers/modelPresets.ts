/** Well-known OpenAI-compatible back ends, offered when a person sets up a model. */
export interface ModelPreset {
  readonly id: 'openai' | 'azure' | 'openrouter' | 'ollama' | 'lmstudio' | 'custom';
  readonly label: string;
  /** Suggested base URL; empty where the person must supply their own. */
  readonly baseUrl: string;
  readonly needsKey: boolean;
}

export const MODEL_PRESETS: readonly ModelPreset[] = [
  { id: 'openai', label: 'OpenAI', baseUrl: 'https://api.openai.com/v1', needsKey: true },
  { id: 'azure', label: 'Azure OpenAI', baseUrl: '', needsKey: true },
  { id: 'openrouter', label: 'OpenRouter', baseUrl: 'https://openrouter.ai/api/v1', needsKey: true },
  { id: 'ollama', label: 'Ollama (local)', baseUrl: 'http://localhost:11434/v1', needsKey: false },
  { id: 'lmstudio', label: 'LM Studio (local)', baseUrl: 'http://localhost:1234/v1', needsKey: false },
  { id: 'custom', label: 'Custom OpenAI-compatible endpoint', baseUrl: '', needsKey: false },
];

/** Finds the preset a configured base URL belongs to, for display. */
export function presetForBaseUrl(baseUrl: string): ModelPreset | undefined {
  let host: string;
  try {
    host = new URL(baseUrl).host.toLowerCase();
  } catch {
    return undefined;
  }
  if (host.endsWith('.openai.azure.com')) {
    return MODEL_PRESETS.find((p) => p.id === 'azure');
  }
  return MODEL_PRESETS.find((p) => p.baseUrl !== '' && new URL(p.baseUrl).host.toLowerCase() === host);
}
