/**
 * The parts of sql.js the session index uses (sql.js ships no types). A file of its own so the
 * database and its queries share them without importing each other.
 */
export type SqlValue = number | string | Uint8Array | null;
export interface SqlJsStatement {
  bind(values?: SqlValue[]): boolean;
  step(): boolean;
  get(): SqlValue[];
  run(values?: SqlValue[]): void;
  reset(): void;
  free(): boolean;
}
export interface SqlJsDatabase {
  run(sql: string, params?: SqlValue[]): unknown;
  exec(sql: string, params?: SqlValue[]): { columns: string[]; values: SqlValue[][] }[];
  prepare(sql: string): SqlJsStatement;
  export(): Uint8Array;
  close(): void;
}
export interface SqlJsStatic {
  Database: new (data?: Uint8Array) => SqlJsDatabase;
}
