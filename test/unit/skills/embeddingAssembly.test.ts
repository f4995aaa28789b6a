import * as assert from 'node:assert/strict';
import { assembleAgent } from '../../../src/core/agent/agentAssembly';
import { NodeFileSystem } from '../../../src/core/base/nodeFileSystem';
import { EmbeddingIndex } from '../../../src/core/skills/search/embeddingIndex';
import { SkillSearch } from '../../../src/core/skills/search/skillSearch';
import { WorkspaceTools } from '../../../src/core/tools/workspaceTools';
import { OpenAiEmbeddingClient } from '../../../src/providers/embeddingClient';
import { EmbeddingFaultServer, vectorsAnswer } from './embeddingFaultServer';
import { makeWorkspace, skillMd } from './skillToolWorkspace';

/** Made-up words of one topic point one way, deployments another: meaning without shared words or synonyms. */
function meaning(text: string): number[] {
  return [/zorblax|quuxify|frobnicate/i.test(text) ? 1 : 0, /deploy|kubernetes|rollout|ship/i.test(text) ? 1 : 0, 0.1];
}

describe('assembleAgent with skill embeddings', () => {
  it('suggests by meaning as well as words, and by words alone when the endpoint hangs', async () => {
    const server = await EmbeddingFaultServer.start(vectorsAnswer((text) => meaning(text)));
    const ws = await makeWorkspace({
      setup: (w) => {
        w.write('.agents/skills', 'zorblax-files/SKILL.md', skillMd('zorblax-files', 'Zorblax the files of a folder and frobnicate the rest.'));
        w.write('.agents/skills', 'deploy-app/SKILL.md', skillMd('deploy-app', 'Deploy a service to Kubernetes and check the rollout.'));
      },
    });
    const index = new EmbeddingIndex({ embedder: new OpenAiEmbeddingClient({ baseUrl: server.baseUrl, model: 'm', maxRetries: 0 }), model: 'm', queryDeadlineMs: 200 });
    try {
      index.update(ws.index.active());
      await index.idle();
      const fs = new NodeFileSystem();
      const folders = [{ name: 'app', fsPath: ws.project }];
      const parts = { fs, folders, index: ws.index, search: new SkillSearch(ws.index.active()), workspaceTools: new WorkspaceTools({ fs, folders }), trusted: true, date: '2026-01-05' };
      const lexicalOnly = await assembleAgent(parts);
      assert.equal(lexicalOnly.suggestHybrid, undefined);
      const agent = await assembleAgent({ ...parts, embeddings: index });
      const message = 'quuxify everything, thanks';
      assert.deepEqual(agent.suggest(message), [], 'no shared word');
      const hybrid = (await agent.suggestHybrid?.(message)) ?? [];
      assert.equal(hybrid[0]?.name, 'zorblax-files');
      assert.match(hybrid[0]?.description ?? '', /frobnicate/);

      server.answer = () => 'hang';
      const started = Date.now();
      const words = (await agent.suggestHybrid?.('deploy the service to kubernetes')) ?? [];
      assert.ok(Date.now() - started < 1_500);
      assert.deepEqual(words, agent.suggest('deploy the service to kubernetes'));
      assert.equal(words[0]?.name, 'deploy-app');
    } finally {
      index.dispose();
      ws.cleanup();
      await server.close();
    }
  });
});
