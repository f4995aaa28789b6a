import type { AgentTool } from '../agent/agentTool';
import type { SessionIndex } from './sessionIndex';
import { runSessionSearch, SESSION_SEARCH_TOOL } from './sessionSearchTool';

/** `session_search` as an agent tool; the current session is left out of its results. */
export function sessionAgentTool(index: SessionIndex, currentSessionId: () => string | undefined): AgentTool {
  const schema = SESSION_SEARCH_TOOL.function;
  return {
    spec: { name: schema.name, description: schema.description, parameters: schema.parameters as Record<string, unknown> },
    readOnly: true,
    run: (args) => {
      const current = currentSessionId();
      return runSessionSearch(args, { index, ...(current ? { currentSessionId: current } : {}) });
    },
  };
}
