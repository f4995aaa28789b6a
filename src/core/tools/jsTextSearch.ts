import * as path from 'node:path';
import type { FileSystemPort } from '../base/fileSystemPort';
import { decodeTextFile, splitLines } from './textFiles';
import type { TextMatch, TextSearchOutcome, TextSearchPort, TextSearchQuery } from './textSearch';
import { belowStart, lineMatcher, MAX_SEARCHED_FILE_BYTES, previewLine } from './textSearch';
import { walkFolder } from './workspaceWalker';

/**
 * Text search without ripgrep: walks the folder with the same ignore rules, skips binary files
 * and files over 1 MiB, and tests each line with a JavaScript RegExp. Slower than ripgrep on big
 * trees, identical in results for the patterns both regex dialects read the same way.
 */
/** Files read at once; enough to keep the disk busy without holding many files in memory. */
const READ_AHEAD = 16;

export class JsTextSearch implements TextSearchPort {
  constructor(private readonly fs: FileSystemPort) {}

  async search(query: TextSearchQuery): Promise<TextSearchOutcome> {
    const matcher = lineMatcher(query);
    if (!matcher.ok) return matcher;
    const regex = matcher.regex;
    const matches: TextMatch[] = [];
    let truncated = false;

    /** The lines of one searchable file, or undefined for binary, huge or unreadable files. */
    const linesOf = async (relative: string): Promise<string[] | undefined> => {
      const absolute = path.join(query.rules.root, ...relative.split('/'));
      const stat = await this.fs.stat(absolute);
      if (!stat || stat.type !== 'file' || stat.size > MAX_SEARCHED_FILE_BYTES) return undefined;
      try {
        const decoded = decodeTextFile(await this.fs.readFile(absolute));
        if (decoded.kind !== 'text') return undefined;
        // Literal text (never a line break) is in some line exactly when it is in the file, and
        // most files do not have it: one test over the whole text spares splitting them.
        if (!query.regex && !regex.test(decoded.text)) return undefined;
        return splitLines(decoded.text);
      } catch {
        return undefined;
      }
    };

    const files: string[] = [];
    if (query.startIsFile) files.push(query.start);
    else {
      await walkFolder(this.fs, query.rules, {
        start: query.start,
        order: 'depth',
        ...(query.signal ? { signal: query.signal } : {}),
        visit: (entry) => {
          if (entry.type === 'file' && (!query.include || query.include(belowStart(entry.relative, query.start)))) files.push(entry.relative);
        },
      });
    }
    // Files are read a few at a time (reading dominates) and searched in walk order.
    search: for (let i = 0; i < files.length && !query.signal?.aborted; i += READ_AHEAD) {
      const batch = files.slice(i, i + READ_AHEAD);
      const contents = await Promise.all(batch.map(linesOf));
      for (const [k, lines] of contents.entries()) {
        if (!lines) continue;
        for (let n = 0; n < lines.length; n++) {
          const line = lines[n] as string;
          const found = regex.exec(line);
          if (!found) continue;
          if (matches.length >= query.maxResults) {
            truncated = true;
            break search;
          }
          const column = found.index + 1;
          matches.push({ path: batch[k] as string, line: n + 1, column, text: previewLine(line, column) });
        }
      }
    }
    if (query.signal?.aborted) return { ok: false, error: 'the search was stopped' };
    return { ok: true, matches, truncated, engine: 'javascript' };
  }
}
