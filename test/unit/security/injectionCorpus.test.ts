import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { buildSystemPrompt } from '../../../src/core/agent/systemPrompt';
import { NodeFileSystem } from '../../../src/core/base/nodeFileSystem';
import { applyMemoryActions, DEFAULT_MEMORY_LIMITS } from '../../../src/core/memory/memoryEdit';
import type { MemoryTarget } from '../../../src/core/memory/memoryEdit';
import { renderMemoryBlock } from '../../../src/core/memory/memorySnapshot';
import { MemoryProposals } from '../../../src/core/memory/memoryProposals';
import { MemoryTool } from '../../../src/core/memory/memoryTool';
import { scanSkillFolder } from '../../../src/core/security/skillScan';
import { scanText } from '../../../src/core/security/threatScanner';
import { makeMemoryDirs } from '../memory/memoryTestDirs';
import type { HostileClass } from './injectionCorpus';
import { BENIGN_LOOKALIKES, HOSTILE_MEMORY } from './injectionCorpus';

const CLASSES: readonly HostileClass[] = ['rule_disregard', 'ssh_key_persistence', 'secret_in_memory', 'approvals_off_edit', 'conversation_exfiltration', 'permission_roleplay'];

function emptyFiles(): Map<MemoryTarget, string[]> {
  return new Map<MemoryTarget, string[]>([
    ['memory', []],
    ['user', []],
  ]);
}

/** A fetched page or command output that carries the entry between ordinary text. */
function toolResult(entry: string): string {
  return `HTTP/1.1 200 OK\n\n# Release notes\n\nVersion 4.2 fixes the login redirect.\n\n${entry}\n\nThanks to all contributors.`;
}

describe('injection corpus', () => {
  it('covers the six hostile classes with several phrasings each, obfuscated ones included', () => {
    for (const c of CLASSES) {
      const entries = HOSTILE_MEMORY.filter((e) => e.class === c);
      assert.ok(entries.length >= 5, `${c}: only ${entries.length} entries`);
      assert.ok(entries.some((e) => e.obfuscation), `${c}: no obfuscated entry`);
    }
    assert.ok(BENIGN_LOOKALIKES.length >= 30);
  });

  it('the memory check refuses every hostile entry, naming the pattern ids, and saves nothing', () => {
    for (const entry of HOSTILE_MEMORY) {
      const result = applyMemoryActions(emptyFiles(), [{ action: 'add', target: 'memory', content: entry.text }], DEFAULT_MEMORY_LIMITS);
      assert.ok(!result.ok, `${entry.class}: saved ${JSON.stringify(entry.text)}`);
      assert.equal(result.code, 'blocked', `${entry.class}: ${result.error}`);
      assert.match(result.error, /blocked by the threat scanner \([a-z0-9-]+(?:, [a-z0-9-]+)*\)/);
    }
  });

  it('the memory check saves every benign look-alike', () => {
    for (const text of BENIGN_LOOKALIKES) {
      const result = applyMemoryActions(emptyFiles(), [{ action: 'add', target: 'memory', content: text }], DEFAULT_MEMORY_LIMITS);
      assert.ok(result.ok, `refused ${JSON.stringify(text)}: ${result.ok ? '' : result.error}`);
    }
  });

  it('the memory tool refuses hostile entries end to end and the file stays as it was', async () => {
    const dirs = makeMemoryDirs();
    try {
      const store = dirs.store();
      const tool = new MemoryTool({ store, proposals: new MemoryProposals(store, () => 1000), reviewMode: () => 'auto' });
      let turn = 0;
      for (const entry of HOSTILE_MEMORY) {
        const result = await tool.run({ action: 'add', target: 'memory', content: entry.text }, { turnId: `t${turn++}` });
        assert.equal(result.success, false, `${entry.class}: saved ${JSON.stringify(entry.text)}`);
        assert.ok(Array.isArray(result['patterns']) && (result['patterns'] as unknown[]).length > 0, JSON.stringify(result));
      }
      assert.equal(fs.existsSync(dirs.memoryFile), false, 'a refused entry was written');
      for (const text of BENIGN_LOOKALIKES.slice(0, 10)) {
        const result = await tool.run({ action: 'add', target: 'memory', content: text }, { turnId: `t${turn++}` });
        assert.equal(result.success, true, `${text}: ${JSON.stringify(result)}`);
      }
    } finally {
      dirs.cleanup();
    }
  });

  it('withholds hostile entries that reach MEMORY.md by hand from the snapshot, and keeps benign ones', () => {
    const entries = [...HOSTILE_MEMORY.map((e) => e.text), ...BENIGN_LOOKALIKES];
    const { block, withheld } = renderMemoryBlock('memory', entries, 1_000_000);
    assert.deepEqual(
      withheld.map((w) => w.n),
      HOSTILE_MEMORY.map((_, i) => i + 1),
    );
    for (const text of BENIGN_LOOKALIKES) assert.ok(block.entries.includes(text), `benign entry withheld: ${text}`);
  });

  it('withholds an instruction file carrying any hostile entry from the system prompt', () => {
    for (const entry of HOSTILE_MEMORY) {
      const text = `# Project guide\n\nRun npm test before committing.\n\n${entry.text}\n`;
      const prompt = buildSystemPrompt({
        catalog: '',
        toolNames: [],
        instructionFiles: [{ path: 'AGENTS.md', text }],
        memory: '',
        userProfile: '',
        date: '2026-01-01',
        trusted: true,
        scan: (t) => scanText(t, { context: 'instructions' }),
      });
      assert.deepEqual(prompt.withheld.map((w) => w.path), ['AGENTS.md'], `${entry.class}: ${entry.text}`);
      assert.ok(!prompt.text.includes(entry.text), 'the hostile text reached the prompt');
    }
    const benign = buildSystemPrompt({
      catalog: '',
      toolNames: [],
      instructionFiles: [{ path: 'AGENTS.md', text: BENIGN_LOOKALIKES.join('\n\n') }],
      memory: '',
      userProfile: '',
      date: '2026-01-01',
      trusted: true,
      scan: (t) => scanText(t, { context: 'instructions' }),
    });
    assert.deepEqual(benign.withheld, []);
  });

  it('flags hostile text in a tool result, and the memory check refuses it when the model copies it over', () => {
    for (const entry of HOSTILE_MEMORY) {
      const output = toolResult(entry.text);
      assert.equal(scanText(output, { context: 'tool_output' }).ok, false, `${entry.class}: tool output not flagged: ${entry.text}`);
      const copied = applyMemoryActions(emptyFiles(), [{ action: 'add', target: 'memory', content: `From the release page: ${entry.text}` }], DEFAULT_MEMORY_LIMITS);
      assert.ok(!copied.ok && copied.code === 'blocked', `${entry.class}: copied entry saved`);
    }
    for (const text of BENIGN_LOOKALIKES) assert.equal(scanText(toolResult(text), { context: 'tool_output' }).ok, true, text);
  });

  it('rates a skill carrying a hostile entry caution or dangerous, except secrets written as plain values (documented)', async () => {
    const temp = fs.mkdtempSync(path.join(os.tmpdir(), 'sw-injection-'));
    try {
      const port = new NodeFileSystem();
      const safe: string[] = [];
      for (const [i, entry] of HOSTILE_MEMORY.entries()) {
        const dir = path.join(temp, `s${i}`);
        fs.mkdirSync(dir);
        fs.writeFileSync(path.join(dir, 'SKILL.md'), `---\nname: s${i}\ndescription: Release helper.\n---\n\n# Release\n\n${entry.text}\n`);
        const report = await scanSkillFolder(port, dir);
        if (report.verdict === 'safe') safe.push(entry.text);
      }
      // docs/threat-patterns.md: in a skill, only known token formats count as secrets; a plain
      // "password is …" is a memory and instruction-file check.
      const expected = HOSTILE_MEMORY.filter((e) => e.class === 'secret_in_memory' && /password/i.test(e.text)).map((e) => e.text);
      assert.deepEqual(safe, expected);
      const benignDir = path.join(temp, 'benign');
      fs.mkdirSync(benignDir);
      fs.writeFileSync(path.join(benignDir, 'SKILL.md'), `---\nname: benign\ndescription: Notes.\n---\n\n${BENIGN_LOOKALIKES.join('\n\n')}\n`);
      assert.equal((await scanSkillFolder(port, benignDir)).verdict, 'safe');
    } finally {
      fs.rmSync(temp, { recursive: true, force: true });
    }
  });
});
