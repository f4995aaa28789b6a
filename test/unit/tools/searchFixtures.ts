import * as fs from 'node:fs';
import * as path from 'node:path';

/** The ripgrep on PATH (Debian's `ripgrep` package; .ci/run installs it). */
export function findRipgrep(): string {
  for (const dir of (process.env['PATH'] ?? '').split(path.delimiter)) {
    const candidate = path.join(dir, process.platform === 'win32' ? 'rg.exe' : 'rg');
    if (dir && fs.existsSync(candidate)) return candidate;
  }
  throw new Error('ripgrep (rg) is not on PATH; install it (e.g. apt-get install ripgrep) to run the search parity tests');
}

const WIDE = `${'x'.repeat(400)} needle ${'y'.repeat(400)}`;

/** One tree with every case where the two engines could disagree. */
export const SEARCH_TREE: Record<string, string | Buffer> = {
  '.gitignore': 'dist/\n*.log\n!keep.log\n',
  'README.md': '# Project\nFind the needle here.\nNo match.\n',
  'a': 'needle in a file named a\n',
  'a.txt': 'needle in a.txt\n',
  'a-b.txt': 'needle in a-b.txt\n',
  'B.txt': 'Needle with a capital\n',
  'sub/b.txt': 'needle in a folder sorted between a and a-b\n',
  'app.log': 'needle in an ignored log\n',
  'keep.log': 'needle in a kept log\n',
  'dist/bundle.js': 'needle in ignored output\n',
  '.hidden/config': 'needle in a hidden folder\n',
  'src/.gitignore': 'generated/\n',
  'src/generated/x.ts': 'needle in a nested-ignored folder\n',
  'src/main.ts': 'const a = "needle";\nconst b = a.b(c);\nneedle1 needle22 neeedle3\n',
  'src/deep/util.ts': 'export const needle = 1;\r\nexport const other = 2;\r\n',
  'src/unicode.ts': 'const s = "héllo wörld"; // needle after multibyte\n',
  'src/wide.min.js': `${WIDE}\n`,
  'src/bom.ts': Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('needle on the first line after a BOM\n')]),
  'src/latin1.txt': Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x20, 0x6e, 0x65, 0x65, 0x64, 0x6c, 0x65, 0x0a]),
  'src/utf16.txt': Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('utf16 needle\n', 'utf16le')]),
  'bin/tool.bin': Buffer.concat([Buffer.from([0x00, 0x01, 0x02]), Buffer.from(' needle in a binary\n')]),
  'big/huge.txt': `${'filler line\n'.repeat(100_000)}needle at the end of a big file\n`,
  'fixtures/sample.txt': 'needle in an excluded fixture\n',
  'docs/guide.md': 'needle in docs\n',
};

export function writeTree(root: string, files: Record<string, string | Buffer>): void {
  for (const [relative, content] of Object.entries(files)) {
    const file = path.join(root, ...relative.split('/'));
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
  }
}
