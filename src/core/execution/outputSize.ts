/** Bytes of a value as JSON (what a trace records as output size); 0 for what JSON cannot hold. */
export function outputBytes(value: unknown): number {
  if (value === undefined) return 0;
  try {
    return Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
  } catch {
    // A BigInt or a cycle: not JSON, and not something a skill can return through the executor.
    return 0;
  }
}
