/**
 * Prompt assembly with 10,000 skills indexed (issue 4's figure): building a session's frozen
 * system prompt once, and assembling each request of a turn. The first request of a turn carries
 * the per-turn skill suggestions (SkillSearch.suggest, a budgeted search); later requests reuse
 * everything. A full `search` of the same messages is printed beside it for comparison.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { assembleAgent } from '../src/core/agent/agentAssembly';
import type { ChatMessage } from '../src/core/llm/chatTypes';
import { withSkillSuggestions } from '../src/core/agent/systemPrompt';
import { SkillIndex } from '../src/core/skills/index/skillIndex';
import { SkillSearch } from '../src/core/skills/search/skillSearch';
import { SyncReadFileSystem } from '../src/core/base/syncReadFileSystem';
import { WorkspaceTools } from '../src/core/tools/workspaceTools';
import { skillTree } from './generateSkillTree';

const QUERIES = [
  'deploy the service to kubernetes and check the rollout',
  'why does the build fail on CI',
  'write release notes for the last tag',
  'convert these images to webp',
  'add a unit test for the parser',
  'summarise the open pull requests',
  // Messages made of words most generated skills hold (the tree's vocabulary): the costly case.
  'check the release report and the build log for errors before we deploy the service',
  'review this change and run the test step again, it failed with a retry error',
  'generate a summary of the dataset and publish the dashboard',
  'audit the api schema and sync the pipeline config',
  'migrate the cache table to the new index and check every query',
  'can you profile the component and trace the slow request?',
];

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

function row(label: string, ours: string, target: string): void {
  console.log(`${label.padEnd(58)} | ${ours.padStart(9)} | ${target.padStart(8)}`);
}

async function main(): Promise<void> {
  const tree = skillTree(10_000);
  const fsPort = new SyncReadFileSystem();
  const index = new SkillIndex({ fs: fsPort, roots: [{ path: tree, scope: 'project', label: 'bench', writeTarget: true }] });
  await index.load();
  const search = new SkillSearch(index.active());
  const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'sw-bench-prompt-'));
  fs.writeFileSync(path.join(workspace, 'AGENTS.md'), 'Run npm test before committing.\n');
  const folders = [{ name: 'bench', fsPath: workspace }];
  const workspaceTools = new WorkspaceTools({ fs: fsPort, folders });

  const builds: number[] = [];
  let prompt = '';
  let suggest: (text: string) => { name: string; description: string }[] = () => [];
  for (let i = 0; i < 7; i += 1) {
    const started = performance.now();
    const agent = await assembleAgent({ fs: fsPort, folders, index, search, workspaceTools, trusted: true, date: '2026-11-30' });
    builds.push(performance.now() - started);
    prompt = agent.prompt.text;
    suggest = agent.suggest;
  }

  const history: ChatMessage[] = [{ role: 'system', content: prompt }];
  for (let i = 0; i < 40; i += 1) history.push({ role: i % 2 ? 'assistant' : 'user', content: `message ${i} `.repeat(40) });
  const firsts: number[] = [];
  const laters: number[] = [];
  const fullSearches: number[] = [];
  const suggested = new Set<string>();
  for (let round = 0; round < 20; round += 1) {
    for (const query of QUERIES) {
      const before = performance.now();
      search.search(query, { top: 3 });
      fullSearches.push(performance.now() - before);
      if (suggest(query).length > 0) suggested.add(query);
      let started = performance.now();
      const messages = [...history, { role: 'user', content: withSkillSuggestions(query, suggest(query)) } as ChatMessage];
      firsts.push(performance.now() - started);
      started = performance.now();
      const again = [...messages, { role: 'tool', toolCallId: 'c', content: '{"success":true}' } as ChatMessage];
      laters.push(performance.now() - started);
      if (again[0]?.content !== prompt) throw new Error('the system prompt changed between requests');
    }
  }
  fs.rmSync(workspace, { recursive: true, force: true });

  console.log(`\nPrompt assembly with ${index.active().length} skills indexed (median; 2 shared cores)\n`);
  row('figure', 'ours', 'target');
  row('-'.repeat(58), '-'.repeat(9), '-'.repeat(8));
  row('session start: catalog + instruction files + system prompt', `${median(builds).toFixed(1)} ms`, '—');
  row('first request of a turn (with skill suggestions)', `${median(firsts).toFixed(2)} ms`, '≤ 2 ms');
  row('  same, p95', `${percentile(firsts, 95).toFixed(2)} ms`, '—');
  row('  full search of the same messages (top 3), for comparison', `${median(fullSearches).toFixed(2)} ms`, '—');
  row('later request of a turn (prefix reused)', `${median(laters).toFixed(3)} ms`, '≤ 2 ms');
  console.log(`\nsystem prompt: ${prompt.length} chars, byte-identical on every request`);
  console.log(`${QUERIES.length} messages, ${suggested.size} of them with suggestions (the rest name no skill closely enough)`);
}

void main();
