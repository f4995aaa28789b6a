import type { FileSystemPort } from './fileSystemPort';

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

/** A TextStore in one file, written atomically (a crash leaves the old or the new text, never half). */
export class FileTextStore implements TextStore {
  constructor(
    private readonly fs: FileSystemPort,
    readonly path: string,
  ) {}

  async read(): Promise<string | undefined> {
    if (!(await this.fs.stat(this.path))) return undefined;
    return new TextDecoder().decode(await this.fs.readFile(this.path));
  }

  write(text: string): Promise<void> {
    return this.fs.writeFileAtomic(this.path, text);
  }
}
