import { clipLine, clipWords, oneLine } from '../text/clip';

/**
 * The MCP tools in the system prompt: one line per tool, grouped by server, within a token budget.
 * Schemas are not listed (they cost tokens on every request); the model fetches one with
 * mcp_tool_schema(name) and calls any tool with mcp_call(name, arguments).
 */

export interface McpListedTool {
  /** The unique `mcp__…` name (mcpToolNames.ts). */
  readonly name: string;
  readonly description: string;
}

export interface McpToolListingResult {
  readonly text: string;
  /** countTokens(text), never above the budget; 0 for no text. */
  readonly tokens: number;
  readonly listed: number;
  readonly omitted: number;
}

/** Description lengths tried in turn (ellipsis included) before tools are left out. */
export const MCP_DESCRIPTION_CHARS = 120;
export const MCP_SHORT_DESCRIPTION_CHARS = 60;
const SERVER_LABEL_CHARS = 80;

const INTRO = [
  '## MCP tools',
  '',
  'Tools of connected MCP servers, one per line. mcp_tool_schema(name) shows a tool\'s parameters; mcp_call(name, arguments) calls it.',
];
const OMITTED_NOTE = 'Some servers have more tools than are listed here; mcp_tool_schema(name) and mcp_call(name, arguments) still reach them by name.';

interface Group {
  readonly label: string;
  /** Lines per description length, built once. */
  readonly lines: ReadonlyMap<number, readonly string[]>;
  readonly count: number;
}

function toolLine(tool: McpListedTool, chars: number): string {
  const description = clipWords(oneLine(tool.description), chars);
  return description ? `- ${tool.name}: ${description}` : `- ${tool.name}`;
}

function header(group: Group, shown: number): string {
  const plural = group.count === 1 ? 'tool' : 'tools';
  if (shown === group.count) return `### ${group.label} (${group.count} ${plural})`;
  return `### ${group.label} (${shown} of ${group.count} ${plural} listed, ${group.count - shown} left out)`;
}

function render(groups: readonly Group[], chars: number, shown: readonly number[]): string {
  const omitted = groups.some((group, i) => (shown[i] ?? 0) < group.count);
  const out = omitted ? [...INTRO, OMITTED_NOTE] : [...INTRO];
  groups.forEach((group, i) => {
    const count = shown[i] ?? 0;
    out.push('', header(group, count), ...(group.lines.get(chars) ?? []).slice(0, count));
  });
  return `${out.join('\n')}\n`;
}

/**
 * How many tools each server shows when `total` are shown in all: the same number from every server
 * (a server with fewer shows all of its own), the remainder to the servers listed first.
 */
function fairCounts(groups: readonly Group[], total: number): number[] {
  const shown = groups.map(() => 0);
  let left = total;
  let open = groups.map((_, i) => i);
  while (left > 0 && open.length > 0) {
    const share = Math.max(1, Math.floor(left / open.length));
    for (const i of open) {
      if (left === 0) break;
      const take = Math.min(share, (groups[i]?.count ?? 0) - (shown[i] ?? 0), left);
      shown[i] = (shown[i] ?? 0) + take;
      left -= take;
    }
    open = open.filter((i) => (shown[i] ?? 0) < (groups[i]?.count ?? 0));
  }
  return shown;
}

/**
 * The listing within `budgetTokens` as `countTokens` counts. Over budget, descriptions are shortened
 * to MCP_SHORT_DESCRIPTION_CHARS, then tools are left out fairly across servers (each keeps its
 * first tools, in the server's order) and each server's header says how many are left out. When not
 * even the headers fit, a one-line pointer stands in; a budget of 0 gives no text.
 */
export function mcpToolListing(
  servers: readonly { server: string; tools: readonly McpListedTool[] }[],
  budgetTokens: number,
  countTokens: (text: string) => number,
): McpToolListingResult {
  const budget = Number.isFinite(budgetTokens) ? Math.max(0, Math.floor(budgetTokens)) : 0;
  const withTools = servers.filter((s) => s.tools.length > 0);
  const total = withTools.reduce((sum, s) => sum + s.tools.length, 0);
  const none: McpToolListingResult = { text: '', tokens: 0, listed: 0, omitted: total };
  if (budget === 0 || total === 0) return none;
  const groups: Group[] = withTools.map((s) => ({
    label: clipLine(s.server, SERVER_LABEL_CHARS),
    count: s.tools.length,
    lines: new Map([MCP_DESCRIPTION_CHARS, MCP_SHORT_DESCRIPTION_CHARS].map((chars) => [chars, s.tools.map((tool) => toolLine(tool, chars))])),
  }));
  const all = groups.map((g) => g.count);
  const fitting = (text: string): McpToolListingResult | undefined => {
    const tokens = countTokens(text);
    return tokens <= budget ? { text, tokens, listed: 0, omitted: 0 } : undefined;
  };
  for (const chars of [MCP_DESCRIPTION_CHARS, MCP_SHORT_DESCRIPTION_CHARS]) {
    const fit = fitting(render(groups, chars, all));
    if (fit) return { ...fit, listed: total, omitted: 0 };
  }
  // The largest total that fits, by bisection: one more tool is one more line, so the cost grows
  // with the total (a header shrinks by a few characters when its server becomes complete, so a
  // count is only taken once its text was measured to fit).
  let best: McpToolListingResult | undefined;
  let bestCount = 0;
  let low = 0;
  let high = total - 1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    const fit = fitting(render(groups, MCP_SHORT_DESCRIPTION_CHARS, fairCounts(groups, mid)));
    if (fit) {
      best = fit;
      bestCount = mid;
      low = mid + 1;
    } else {
      high = mid - 1;
    }
  }
  if (best) return { ...best, listed: bestCount, omitted: total - bestCount };
  const names = groups.map((g) => g.label).join(', ');
  const pointer = fitting(`## MCP tools\n${total} tools of MCP servers (${names}) are not listed; mcp_tool_schema(name) and mcp_call(name, arguments) reach them by name.\n`);
  return pointer ? { ...pointer, listed: 0, omitted: total } : none;
}
