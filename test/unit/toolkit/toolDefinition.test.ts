import * as assert from 'node:assert/strict';
import { z } from 'zod';
import { DEFAULT_TOOL_KINDS } from '../../../src/core/agent/approvals';
import { MEMORY_TOOL } from '../../../src/core/memory/memoryTool';
import { SESSION_SEARCH_TOOL } from '../../../src/core/sessions/sessionSearchTool';
import { SKILL_TOOLS } from '../../../src/core/skills/tools/skillTools';
import { parseToolArgs } from '../../../src/core/toolkit/toolArgs';
import { agentToolsOf, defineTool, toolSpecOf } from '../../../src/core/toolkit/toolDefinition';
import { WORKSPACE_TOOLS } from '../../../src/core/tools/workspaceTools';

const probe = defineTool({
  name: 'probe',
  description: 'A tool for the tests of the one argument check.',
  args: z.strictObject({
    path: z.string().describe('Where.'),
    count: z.int().min(1).max(5).optional(),
    mode: z.enum(['fast', 'slow']).optional(),
    deep: z.boolean().optional(),
  }),
  approval: 'edit',
  execute: async (args) => ({ success: true, echoed: args }),
});

const refusal = (raw: unknown): string => {
  const parsed = parseToolArgs(probe.name, probe.args, raw);
  assert.equal(parsed.ok, false, JSON.stringify(raw));
  return parsed.ok ? '' : parsed.error;
};

describe('tool definitions', () => {
  it('derive the JSON schema the model sees: closed objects, required fields, bounds, no draft marker or safe-integer noise', () => {
    const spec = toolSpecOf(probe);
    assert.deepEqual(spec.parameters, {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'Where.' },
        count: { type: 'integer', minimum: 1, maximum: 5 },
        mode: { type: 'string', enum: ['fast', 'slow'] },
        deep: { type: 'boolean' },
      },
      required: ['path'],
      additionalProperties: false,
    });
  });

  it('accept JSON text, strings for numbers and booleans, and null as absent', () => {
    assert.deepEqual(parseToolArgs(probe.name, probe.args, '{"path": "a", "count": "3", "deep": "true", "mode": null}'), { ok: true, args: { path: 'a', count: 3, deep: true } });
    assert.deepEqual(parseToolArgs(probe.name, probe.args, { path: 'a' }), { ok: true, args: { path: 'a' } });
  });

  it('refuse each malformed call with a message that names the field and what to send', () => {
    assert.match(refusal('{"path": '), /^probe arguments are not valid JSON; send an object such as \{"path": "\.\.\."\}$/);
    assert.match(refusal('[1]'), /must be a JSON object such as .* not an array/);
    assert.match(refusal({ path: 'a', colour: 'red' }), /^probe has no argument "colour"; its arguments are path, count, mode, deep$/);
    assert.match(refusal({}), /^probe needs "path"$/);
    assert.match(refusal({ path: 7 }), /^probe: "path" must be a string, not number$/);
    assert.match(refusal({ path: 'a', count: 0 }), /^probe: "count" must be at least 1, not 0$/);
    assert.match(refusal({ path: 'a', count: 9 }), /^probe: "count" must be at most 5, not 9$/);
    assert.match(refusal({ path: 'a', count: 'many' }), /^probe: "count" must be a whole number from 1 to 5, not "many"$/);
    assert.match(refusal({ path: 'a', count: 1.5 }), /"count" must be a whole number/);
    assert.match(refusal({ path: 'a', mode: 'warp' }), /^probe: "mode" must be one of "fast", "slow", not "warp"$/);
    assert.match(refusal({ path: 'a', deep: 'yes' }), /^probe: "deep" must be a boolean, not string$/);
  });

  it('run through the loop adapter: a throw becomes an actionable failure, the flags come from the definition', async () => {
    const broken = defineTool({ ...probe, name: 'broken', execute: async () => Promise.reject(new Error('EIO')) });
    const errors: string[] = [];
    const [tool] = agentToolsOf([broken], () => undefined, (name, error) => errors.push(`${name}: ${String(error)}`));
    assert.ok(tool);
    assert.equal(tool.readOnly, false);
    assert.equal(tool.approval, 'edit');
    const result = (await tool.run({ path: 'a' }, { signal: new AbortController().signal, turnId: 't' })) as { success: boolean; error: string };
    assert.equal(result.success, false);
    assert.match(result.error, /^broken failed unexpectedly: EIO\. Try again/);
    assert.deepEqual(errors, ['broken: Error: EIO']);
  });

  it('give the approval policy the kind of every built-in tool, read off the definitions', () => {
    const all = [...SKILL_TOOLS, ...WORKSPACE_TOOLS, MEMORY_TOOL, SESSION_SEARCH_TOOL];
    assert.equal(new Set(all.map((d) => d.name)).size, all.length, 'tool names are unique');
    for (const definition of all) assert.equal(DEFAULT_TOOL_KINDS[definition.name], definition.approval, definition.name);
    assert.deepEqual(
      all.filter((d) => d.approval === 'read').map((d) => d.name),
      ['skills_list', 'skill_view', 'read_file', 'list_files', 'find_files', 'search_text', 'session_search'],
    );
  });
});
