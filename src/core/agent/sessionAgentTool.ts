import type { AgentTool } from '../toolkit/agentTool';
import type { Logger } from '../base/logger';
import type { SessionIndex } from '../sessions/sessionIndex';
import type { SessionSearchContext } from '../sessions/sessionSearchTool';
import { runSessionSearch, SESSION_SEARCH_TOOL } from '../sessions/sessionSearchTool';

export interface SessionAgentToolOptions {
  /** Hit summaries by a cheaper model (`hitSummarizer`); absent when the setting is empty. */
  readonly summarize?: SessionSearchContext['summarize'];
  readonly logger?: Logger;
}

/** `session_search` as an agent tool; the current session is left out of its results. */
export function sessionAgentTool(index: SessionIndex, currentSessionId: () => string | undefined, options: SessionAgentToolOptions = {}): AgentTool {
  const schema = SESSION_SEARCH_TOOL.function;
  return {
    spec: { name: schema.name, description: schema.description, parameters: schema.parameters as Record<string, unknown> },
    readOnly: true,
    run: (args, context) => {
      const current = currentSessionId();
      return runSessionSearch(args, {
        index,
        ...(current ? { currentSessionId: current } : {}),
        ...(options.summarize ? { summarize: options.summarize } : {}),
        ...(options.logger ? { logger: options.logger } : {}),
        ...(context?.signal ? { signal: context.signal } : {}),
      });
    },
  };
}
