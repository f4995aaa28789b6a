/**
 * A JSON object from text a model or a tool wrote (tool-call arguments, tool results), or
 * undefined when the text is not JSON or not an object: such text is data to cope with, not an error.
 */
export function parseJsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
