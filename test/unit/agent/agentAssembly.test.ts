import * as assert from 'node:assert/strict';
import { assembleAgent } from '../../../src/core/agent/agentAssembly';
import { withSkillSuggestions } from '../../../src/core/agent/systemPrompt';
import { NodeFileSystem } from '../../../src/core/base/nodeFileSystem';
import { SkillSearch } from '../../../src/core/skills/search/skillSearch';
import { WorkspaceTools } from '../../../src/core/tools/workspaceTools';
import { makeWorkspace, skillMd } from '../skills/skillToolWorkspace';

describe('assembleAgent suggestions', () => {
  it('suggests the skills a message names, with their descriptions, and nothing for small talk', async () => {
    const ws = await makeWorkspace({
      setup: (w) => {
        w.write('.agents/skills', 'devops/deploy-app/SKILL.md', skillMd('deploy-app', 'Deploy a service to Kubernetes with Helm and check the rollout. Use when shipping.'));
        w.write('.agents/skills', 'release-notes/SKILL.md', skillMd('release-notes', 'Draft release notes from merged pull requests. Use when tagging a release.'));
      },
    });
    try {
      const fs = new NodeFileSystem();
      const folders = [{ name: 'app', fsPath: ws.project }];
      const agent = await assembleAgent({
        fs,
        folders,
        index: ws.index,
        search: new SkillSearch(ws.index.active()),
        workspaceTools: new WorkspaceTools({ fs, folders }),
        trusted: true,
        date: '2026-01-05',
      });
      const suggestions = agent.suggest('Please deploy the payments service to kubernetes and watch the rollout');
      assert.equal(suggestions[0]?.name, 'deploy-app');
      assert.match(suggestions[0]?.description ?? '', /Helm/);
      assert.ok(suggestions.length <= 3);
      assert.deepEqual(agent.suggest('hello, how are you today?'), []);
      assert.match(withSkillSuggestions('deploy it', suggestions), /<skill-suggestions>[\s\S]*- deploy-app: Deploy a service/);
    } finally {
      ws.cleanup();
    }
  });
});
