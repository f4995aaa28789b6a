import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { LINT_RULES, lintSkill } from '../../../src/core/skills/lint/skillLint';
import { parseSkillBytes } from '../../../src/core/skills/model/skillParser';
import type { ParsedSkill } from '../../../src/core/skills/model/skillParser';
import type { LintFinding } from '../../../src/core/skills/model/skillTypes';
import { repoRoot } from '../../repoRoot';

const corpus = path.join(repoRoot(), '..', 'shared', 'corpus');

interface Linted {
  /** `<source>/<path to SKILL.md>`, `/`-separated. */
  readonly id: string;
  readonly folderName: string;
  readonly parsed: ParsedSkill;
  /** Omitted files counted as present: they exist upstream, only the copy rule dropped them. */
  readonly findings: LintFinding[];
  /** Only what is on disk here. */
  readonly strictFindings: LintFinding[];
}

interface Stats {
  readonly _all_sources: {
    readonly skills: number;
    readonly strict_yaml_fail: number;
    readonly name_differs_from_folder: number;
    readonly name_violates_agentskills_rule: number;
    readonly description_over_1024: number;
  };
}

function skillFiles(dir: string, out: string[] = []): string[] {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) skillFiles(full, out);
    else if (entry.name === 'SKILL.md') out.push(full);
  }
  return out;
}

/** Every omitted file and every folder above one, as absolute paths. */
function omittedPaths(): Set<string> {
  const omitted = JSON.parse(fs.readFileSync(path.join(corpus, 'omitted.json'), 'utf8')) as Record<string, [string, number, string][]>;
  const paths = new Set<string>();
  for (const [source, entries] of Object.entries(omitted)) {
    for (const [relative] of entries) {
      let current = path.join(corpus, source, ...relative.split('/'));
      while (current.startsWith(corpus) && !paths.has(current)) {
        paths.add(current);
        current = path.dirname(current);
      }
    }
  }
  return paths;
}

function countsByCode(all: readonly Linted[], pick: (item: Linted) => readonly LintFinding[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of all) for (const f of pick(item)) counts.set(f.code, (counts.get(f.code) ?? 0) + 1);
  return counts;
}

describe('lint over the real-world corpus (../shared/corpus)', function () {
  this.timeout(120_000);
  const linted: Linted[] = [];
  let stats: Stats;

  before(async () => {
    if (!fs.existsSync(path.join(corpus, 'stats.json'))) {
      throw new Error(`The skills corpus is missing: expected it at ${corpus} (../shared/corpus beside the repository). The corpus tests need it; they do not skip.`);
    }
    stats = JSON.parse(fs.readFileSync(path.join(corpus, 'stats.json'), 'utf8')) as Stats;
    const omitted = omittedPaths();
    for (const file of skillFiles(corpus)) {
      const dir = path.dirname(file);
      const parsed = parseSkillBytes(fs.readFileSync(file));
      const onDisk = (relative: string): boolean => fs.existsSync(path.resolve(dir, relative));
      const base = { folderName: path.basename(dir) };
      linted.push({
        id: path.relative(corpus, file).split(path.sep).join('/'),
        folderName: base.folderName,
        parsed,
        findings: await lintSkill(parsed, { ...base, exists: (relative) => onDisk(relative) || omitted.has(path.resolve(dir, relative)) }),
        strictFindings: await lintSkill(parsed, { ...base, exists: onDisk }),
      });
    }
  });

  it('loads and lints every skill without throwing', () => {
    assert.equal(linted.length, stats._all_sources.skills);
  });

  it('gives every finding a known code, its table severity, a message and a range inside the file', () => {
    const severity = new Map(LINT_RULES.map((rule) => [rule.code, rule.severity]));
    for (const item of linted) {
      for (const f of [...item.findings, ...item.strictFindings]) {
        assert.equal(f.severity, severity.get(f.code), `${item.id} ${f.code}`);
        assert.ok(f.message.length > 20, `${item.id} ${f.code} message`);
        const { startLine, startColumn, endLine, endColumn } = f.range;
        assert.ok(startLine >= 0 && endLine < item.parsed.lines.length && startLine <= endLine, `${item.id} ${f.code} lines`);
        assert.ok(startColumn >= 0 && endColumn <= (item.parsed.lines[endLine] ?? assert.fail(`${item.id} ${f.code} end line`)).length, `${item.id} ${f.code} columns`);
      }
    }
  });

  it('agrees with stats.json: no frontmatter fails, and the same name, length and folder figures', () => {
    const has = (item: Linted, code: string): boolean => item.findings.some((f) => f.code === code);
    const parseFailures = linted.filter((item) => ['SW103', 'SW104', 'SW105', 'SW106'].some((code) => has(item, code)) || item.parsed.fallbackUsed);
    assert.equal(parseFailures.length, stats._all_sources.strict_yaml_fail);
    const differs = linted.filter((item) => has(item, 'SW203') || (has(item, 'SW202') && item.parsed.frontmatter['name'] !== item.folderName));
    assert.equal(differs.length, stats._all_sources.name_differs_from_folder);
    assert.equal(linted.filter((item) => has(item, 'SW202')).length, stats._all_sources.name_violates_agentskills_rule);
    assert.equal(linted.filter((item) => has(item, 'SW303')).length, stats._all_sources.description_over_1024);
  });

  it('finds no broken link other than links to files the copy rule omitted', () => {
    const omitted = omittedPaths();
    const strictLinks = linted.flatMap((item) => item.strictFindings.filter((f) => f.code === 'SW503').map((f) => ({ item, f })));
    assert.ok(strictLinks.length > 300, 'links to omitted files are reported when only the disk counts');
    for (const { item, f } of strictLinks) {
      const target = (/"([^"]+)"/.exec(f.message)?.[1] ?? assert.fail(`${item.id}: no quoted target in ${f.message}`)).replace(/[?#].*$/, '');
      const resolved = path.resolve(path.join(corpus, path.dirname(item.id)), decodeURIComponent(target));
      assert.ok(omitted.has(resolved), `${item.id}: ${target} is neither on disk nor omitted`);
    }
    assert.deepEqual(linted.flatMap((item) => item.findings.filter((f) => f.code === 'SW503').map(() => item.id)), []);
  });

  it('reports exactly the mentions of support files checked by hand as really missing upstream', () => {
    const mentions = linted.flatMap((item) => item.findings.filter((f) => f.code === 'SW504').map((f) => `${item.id} ${/"([^"]+)"/.exec(f.message)![1]}`));
    assert.deepEqual([...new Set(mentions)].sort(), [
      'awesome-copilot/skills/excalidraw-diagram-generator/SKILL.md templates/flowchart-template.json',
      'awesome-copilot/skills/excalidraw-diagram-generator/SKILL.md templates/mindmap-template.json',
      'awesome-copilot/skills/excalidraw-diagram-generator/SKILL.md templates/relationship-template.json',
      'awesome-copilot/skills/gdpr-compliant/SKILL.md references/operations.md',
      'awesome-copilot/skills/gdpr-compliant/SKILL.md references/security.md',
      'hermes-agent/optional-skills/security/unbroker/SKILL.md scripts/run_tests.sh',
      'hermes-agent/skills/autonomous-ai-agents/hermes-agent/SKILL.md scripts/run_tests.sh',
      'hermes-agent/skills/software-development/python-debugpy/SKILL.md scripts/run_tests.sh',
      'openai-skills/skills/.system/skill-creator/SKILL.md references/output-patterns.md',
      'openai-skills/skills/.system/skill-creator/SKILL.md references/workflows.md',
    ]);
  });

  it('matches the per-code counts documented in docs/lint-rules.md', () => {
    const docs = fs.readFileSync(path.join(repoRoot(), 'docs', 'lint-rules.md'), 'utf8');
    const section = docs.slice(docs.indexOf('## Findings on the corpus'));
    const documented = new Map<string, number>();
    for (const match of section.matchAll(/^\| (SW\d{3}) \| [a-z]+ \| (\d+) \| (\d+) \|/gm)) {
      documented.set(match[1] ?? assert.fail('the code group always takes part in a match'), Number(match[2]));
    }
    const counted = countsByCode(linted, (item) => item.findings);
    for (const rule of LINT_RULES) {
      assert.equal(counted.get(rule.code) ?? 0, documented.get(rule.code) ?? 0, `${rule.code}: counted ${counted.get(rule.code) ?? 0}, documented ${documented.get(rule.code) ?? 'nothing'}`);
    }
  });
});
