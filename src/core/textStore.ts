/** A small named blob of text in the extension's storage (never in the repo): snapshots, usage. */
export interface TextStore {
  read(): Promise<string | undefined>;
  write(text: string): Promise<void>;
}

/** A TextStore kept in memory, for tests and the CLI (which keeps no state between runs). */
export class MemoryTextStore implements TextStore {
  constructor(private text?: string) {}

  read(): Promise<string | undefined> {
    return Promise.resolve(this.text);
  }

  write(text: string): Promise<void> {
    this.text = text;
    return Promise.resolve();
  }
}
