/** What every tool returns: JSON the model reads. Failures say what to do instead. */
export type ToolResult = { readonly success: true; readonly [k: string]: unknown } | { readonly success: false; readonly error: string; readonly [k: string]: unknown };

export const fail = (error: string): ToolResult => ({ success: false, error });
