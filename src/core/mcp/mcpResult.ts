/**
 * What an MCP tools/call answer becomes for the agent and the panel: text the model reads (capped,
 * so one 5 MB answer cannot fill the context), images kept only when small enough to render inline,
 * resources as references the host opens, never as inlined content.
 *
 * The raw answer is read tolerantly (unknown content types are described, not rejected), because
 * a server's odd answer should reach the model as text rather than fail the turn.
 */

export interface McpResultImage {
  readonly mimeType: string;
  /** `data:<mime>;base64,…`, only when the decoded image is at most `MCP_IMAGE_INLINE_MAX_BYTES`. */
  readonly dataUri?: string;
  /** Decoded size. */
  readonly bytes: number;
}

export interface McpResultResource {
  readonly uri: string;
  readonly name?: string;
  readonly mimeType?: string;
}

/** Why a call produced no answer from the server; absent when the server answered (even with isError). */
export type McpCallFailure = 'not-connected' | 'unknown-tool' | 'timeout' | 'cancelled' | 'protocol';

export interface McpCallResult {
  readonly isError: boolean;
  /** Capped, with a note of how much was cut. */
  readonly text: string;
  readonly images: readonly McpResultImage[];
  readonly resources: readonly McpResultResource[];
  readonly structured?: unknown;
  readonly ms: number;
  readonly failure?: McpCallFailure;
}

export const MCP_RESULT_TEXT_MAX = 100_000;
export const MCP_IMAGE_INLINE_MAX_BYTES = 256 * 1024;

export interface McpResultLimits {
  readonly textMax: number;
  readonly imageInlineMaxBytes: number;
}

const DEFAULT_LIMITS: McpResultLimits = { textMax: MCP_RESULT_TEXT_MAX, imageInlineMaxBytes: MCP_IMAGE_INLINE_MAX_BYTES };

/** Turns a raw tools/call result (as the server sent it) into what the agent and panel use. */
export function mcpCallResult(raw: unknown, ms: number, limits: McpResultLimits = DEFAULT_LIMITS): McpCallResult {
  const result = isRecord(raw) ? raw : {};
  const parts: string[] = [];
  const images: McpResultImage[] = [];
  const resources: McpResultResource[] = [];
  const content = Array.isArray(result.content) ? result.content : [];
  for (const block of content) {
    readBlock(block, parts, images, resources, limits);
  }
  const structured = result.structuredContent;
  if (parts.length === 0 && structured !== undefined) {
    // Servers with an output schema may send structured content only; the model still needs text.
    parts.push(safeJson(structured));
  }
  if (!isRecord(raw)) {
    parts.push(`[The server's answer was not an MCP tool result: ${safeJson(raw).slice(0, 200)}]`);
  }
  return {
    isError: result.isError === true,
    text: capText(parts.join('\n'), limits.textMax),
    images,
    resources,
    ...(structured !== undefined ? { structured } : {}),
    ms,
  };
}

/** A result for a call the server never answered (not connected, timed out, cancelled, protocol error). */
export function mcpFailedCall(failure: McpCallFailure, message: string, ms: number): McpCallResult {
  return { isError: true, text: message, images: [], resources: [], ms, failure };
}

/** Cuts text at `max` characters (never inside a surrogate pair) and says how much was cut. */
export function capText(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  const cut = text.length - end;
  return `${text.slice(0, end)}\n\n[Result cut: ${cut.toLocaleString('en-US')} of ${text.length.toLocaleString('en-US')} characters not shown.]`;
}

function readBlock(
  block: unknown,
  parts: string[],
  images: McpResultImage[],
  resources: McpResultResource[],
  limits: McpResultLimits,
): void {
  if (!isRecord(block)) return;
  switch (block.type) {
    case 'text':
      if (typeof block.text === 'string') parts.push(block.text);
      return;
    case 'image': {
      const mimeType = typeof block.mimeType === 'string' ? block.mimeType : 'application/octet-stream';
      const data = typeof block.data === 'string' ? block.data : '';
      const bytes = base64Bytes(data);
      const inline = bytes <= limits.imageInlineMaxBytes && mimeType.startsWith('image/') && isBase64(data);
      images.push(inline ? { mimeType, dataUri: `data:${mimeType};base64,${data}`, bytes } : { mimeType, bytes });
      parts.push(`[Image: ${mimeType}, ${formatBytes(bytes)}${inline ? '' : ', too large to show'}]`);
      return;
    }
    case 'audio': {
      const mimeType = typeof block.mimeType === 'string' ? block.mimeType : 'audio';
      parts.push(`[Audio: ${mimeType}, ${formatBytes(base64Bytes(typeof block.data === 'string' ? block.data : ''))}, not shown]`);
      return;
    }
    case 'resource_link': {
      const resource = readResource(block);
      if (resource) {
        resources.push(resource);
        parts.push(`[Resource: ${resource.name ?? resource.uri} <${resource.uri}>]`);
      }
      return;
    }
    case 'resource': {
      const embedded = isRecord(block.resource) ? block.resource : undefined;
      const resource = embedded ? readResource(embedded) : undefined;
      if (!embedded || !resource) return;
      resources.push(resource);
      if (typeof embedded.text === 'string') {
        parts.push(`[Resource <${resource.uri}>]\n${embedded.text}`);
      } else {
        const size = typeof embedded.blob === 'string' ? `, ${formatBytes(base64Bytes(embedded.blob))}` : '';
        parts.push(`[Resource <${resource.uri}>${resource.mimeType ? `, ${resource.mimeType}` : ''}${size}, not shown]`);
      }
      return;
    }
    default:
      parts.push(`[Content of type ${JSON.stringify(String(block.type))} not shown]`);
  }
}

function readResource(value: Record<string, unknown>): McpResultResource | undefined {
  if (typeof value.uri !== 'string' || value.uri === '') return undefined;
  return {
    uri: value.uri,
    ...(typeof value.name === 'string' ? { name: value.name } : {}),
    ...(typeof value.mimeType === 'string' ? { mimeType: value.mimeType } : {}),
  };
}

function base64Bytes(data: string): number {
  const trimmed = data.replace(/\s+/g, '');
  const padding = trimmed.endsWith('==') ? 2 : trimmed.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((trimmed.length * 3) / 4) - padding);
}

function isBase64(data: string): boolean {
  return data.length > 0 && /^[A-Za-z0-9+/]+={0,2}$/.test(data);
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** JSON of any value, or its String() when it has none (undefined, a function, a cycle). */
export function safeJson(value: unknown): string {
  try {
    // JSON.stringify gives undefined for undefined and functions, whatever its type says.
    const json = JSON.stringify(value) as string | undefined;
    return json ?? String(value);
  } catch {
    return String(value);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
