export interface ModelStatus {
  readonly configured: boolean;
  readonly baseUrl: string;
  readonly model: string;
  /** Name of the matching preset (e.g. "Ollama (local)"), when the URL matches one. */
  readonly provider?: string;
  /** One sentence telling the person what is set up or what to do next. */
  readonly advice: string;
}

export interface ModelSettings {
  readonly baseUrl: string;
  readonly model: string;
}

/**
 * Judges the model settings without contacting the server: it only says whether they are complete
 * and well-formed, and how to finish them.
 */
export function describeModelSettings(settings: ModelSettings, providerLabel?: string): ModelStatus {
  const baseUrl = settings.baseUrl.trim();
  const model = settings.model.trim();
  const base = { baseUrl, model, ...(providerLabel ? { provider: providerLabel } : {}) };
  if (!baseUrl && !model) {
    return {
      ...base,
      configured: false,
      advice:
        'No model is configured. Use Configure Model, or set "Skillwright › Model: Base Url" (for example http://localhost:11434/v1 for Ollama) and "Skillwright › Model: Name" in Settings.',
    };
  }
  if (!baseUrl) {
    return { ...base, configured: false, advice: 'Set "Skillwright › Model: Base Url" to an OpenAI-compatible endpoint ending in /v1.' };
  }
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return { ...base, configured: false, advice: `"${baseUrl}" is not a URL. Use the form https://host/v1.` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { ...base, configured: false, advice: `The base URL must start with http:// or https://, not ${url.protocol}//.` };
  }
  if (!model) {
    return { ...base, configured: false, advice: 'Set "Skillwright › Model: Name" to the model to use at this endpoint.' };
  }
  return { ...base, configured: true, advice: `Using ${model} at ${url.origin}${url.pathname.replace(/\/$/, '')}.` };
}
