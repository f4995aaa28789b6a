/**
 * Typed reads of already-checked arguments (the check itself is core/toolkit/toolArgs.ts, driven
 * by each tool's definition).
 */
export type Args = Readonly<Record<string, string | boolean | number | undefined>>;

export const stringArg = (args: Args, key: string): string | undefined => {
  const value = args[key];
  return typeof value === 'string' ? value : undefined;
};
export const numberArg = (args: Args, key: string): number | undefined => {
  const value = args[key];
  return typeof value === 'number' ? value : undefined;
};
export const booleanArg = (args: Args, key: string): boolean | undefined => {
  const value = args[key];
  return typeof value === 'boolean' ? value : undefined;
};
