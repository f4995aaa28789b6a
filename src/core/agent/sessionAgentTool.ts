import type { Logger } from '../base/logger';
import { describeError } from '../base/logger';
import type { SessionIndex } from '../sessions/sessionIndex';
import type { SessionSearchContext } from '../sessions/sessionSearchTool';
import { SESSION_SEARCH_TOOL } from '../sessions/sessionSearchTool';
import type { AgentTool } from '../toolkit/agentTool';
import { agentToolsOf } from '../toolkit/toolDefinition';

export interface SessionAgentToolOptions {
  /** Hit summaries by a cheaper model (`hitSummarizer`); absent when the setting is empty. */
  readonly summarize?: SessionSearchContext['summarize'];
  readonly logger?: Logger;
}

/** `session_search` as an agent tool; the current session is left out of its results. */
export function sessionAgentTool(index: SessionIndex, currentSessionId: () => string | undefined, options: SessionAgentToolOptions = {}): AgentTool {
  const context = (): SessionSearchContext => {
    const current = currentSessionId();
    return {
      index,
      ...(current ? { currentSessionId: current } : {}),
      ...(options.summarize ? { summarize: options.summarize } : {}),
      ...(options.logger ? { logger: options.logger } : {}),
    };
  };
  const [tool] = agentToolsOf([SESSION_SEARCH_TOOL], context, (name, error) => options.logger?.error(`${name} failed: ${describeError(error)}`));
  if (!tool) throw new Error('session_search has no definition');
  return tool;
}
