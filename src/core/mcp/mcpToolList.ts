/**
 * Reads a server's tools/list answers into the tools we offer: pages followed up to a cap, each
 * tool read tolerantly. A tool whose schema is missing, not an object schema, or too large to send
 * on every request keeps working with a replaced, permissive schema and a note saying why, so one
 * sloppy tool neither hides the server's others nor disappears without a word.
 */

export interface McpToolInfo {
  readonly name: string;
  readonly title?: string;
  readonly description: string;
  readonly inputSchema: Record<string, unknown>;
  /** The server's annotations.readOnlyHint: shown to the user, never trusted for approval. */
  readonly readOnlyHint?: boolean;
  /** Why the server's inputSchema was replaced, when it was. */
  readonly schemaNote?: string;
}

export const MCP_TOOLS_MAX = 1_000;
export const MCP_TOOL_SCHEMA_MAX_CHARS = 64 * 1024;
const MCP_LIST_PAGES_MAX = 200;
const DESCRIPTION_MAX = 4_000;

export interface McpToolListRead {
  readonly tools: McpToolInfo[];
  /** One line per problem (a replaced schema, a skipped tool, a cut list), for the log. */
  readonly notes: string[];
}

/** Fetches every page (following nextCursor) and reads the tools; `fetchPage` throws on a failed request. */
export async function listMcpTools(
  fetchPage: (cursor: string | undefined) => Promise<unknown>,
  maxTools: number = MCP_TOOLS_MAX,
): Promise<McpToolListRead> {
  const tools: McpToolInfo[] = [];
  const notes: string[] = [];
  const seen = new Set<string>();
  const cursors = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; ; page++) {
    const answer = await fetchPage(cursor);
    const record = isRecord(answer) ? answer : {};
    const rawTools = Array.isArray(record.tools) ? record.tools : [];
    if (!Array.isArray(record.tools)) notes.push('A tools/list answer had no "tools" array; it was read as empty.');
    let cut = false;
    for (const raw of rawTools) {
      if (tools.length >= maxTools) {
        cut = true;
        break;
      }
      const read = readMcpTool(raw);
      if (read.note) notes.push(read.note);
      if (!read.tool) continue;
      if (seen.has(read.tool.name)) {
        notes.push(`Tool "${read.tool.name}" is listed twice; the first one is used.`);
        continue;
      }
      seen.add(read.tool.name);
      tools.push(read.tool);
    }
    const next = typeof record.nextCursor === 'string' && record.nextCursor !== '' ? record.nextCursor : undefined;
    if (cut || (tools.length >= maxTools && next !== undefined)) {
      notes.push(`The server lists more than ${maxTools} tools; only the first ${maxTools} are used.`);
      break;
    }
    if (next === undefined) break;
    if (cursors.has(next) || page + 1 >= MCP_LIST_PAGES_MAX) {
      notes.push(`The server's tool list did not end after ${page + 1} pages (its cursor repeats); the tools read so far are used.`);
      break;
    }
    cursors.add(next);
    cursor = next;
  }
  return { tools, notes };
}

/** One tool from a tools/list answer; a nameless entry is skipped with a note. */
export function readMcpTool(raw: unknown): { tool?: McpToolInfo; note?: string } {
  if (!isRecord(raw) || typeof raw.name !== 'string' || raw.name.trim() === '') {
    const shown = isRecord(raw) && typeof raw.description === 'string' ? ` (described as "${raw.description.slice(0, 60)}")` : '';
    return { note: `A listed tool has no name${shown}; it cannot be called and was skipped.` };
  }
  const name = raw.name;
  const description = typeof raw.description === 'string' ? raw.description.slice(0, DESCRIPTION_MAX) : '';
  const title = typeof raw.title === 'string' ? raw.title : isRecord(raw.annotations) && typeof raw.annotations.title === 'string' ? raw.annotations.title : undefined;
  const readOnly = isRecord(raw.annotations) && typeof raw.annotations.readOnlyHint === 'boolean' ? raw.annotations.readOnlyHint : undefined;
  const schema = readSchema(raw.inputSchema);
  const tool: McpToolInfo = {
    name,
    ...(title !== undefined ? { title } : {}),
    description,
    inputSchema: schema.schema,
    ...(readOnly !== undefined ? { readOnlyHint: readOnly } : {}),
    ...(schema.note !== undefined ? { schemaNote: schema.note } : {}),
  };
  return schema.note !== undefined ? { tool, note: `Tool "${name}": ${schema.note}` } : { tool };
}

function readSchema(raw: unknown): { schema: Record<string, unknown>; note?: string } {
  if (raw === undefined) return replaced('the server gave no input schema');
  if (!isRecord(raw)) return replaced(`the input schema is ${Array.isArray(raw) ? 'an array' : typeof raw}, not a JSON Schema object`);
  if (raw.type !== undefined && raw.type !== 'object') {
    return replaced(`the input schema has type ${JSON.stringify(raw.type)}; tool arguments must be an object`);
  }
  if (raw.properties !== undefined && !isRecord(raw.properties)) return replaced('the input schema\'s "properties" is not an object');
  let size: number;
  try {
    size = JSON.stringify(raw).length;
  } catch {
    return replaced('the input schema cannot be written as JSON');
  }
  if (size > MCP_TOOL_SCHEMA_MAX_CHARS) {
    return replaced(`the input schema is ${Math.round(size / 1024)} KB, more than the ${MCP_TOOL_SCHEMA_MAX_CHARS / 1024} KB sent to a model`);
  }
  return { schema: raw.type === undefined ? { type: 'object', ...raw } : raw };
}

function replaced(reason: string): { schema: Record<string, unknown>; note: string } {
  return {
    schema: { type: 'object', additionalProperties: true, description: `Arguments as the tool's description says (its schema was not usable: ${reason}).` },
    note: `${reason}; a permissive schema is used instead`,
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
