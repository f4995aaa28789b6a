import type { ChatMessage, ToolCall } from '../../llm/chatTypes';
import type { TurnTriggers } from './skillUsage';
import { parseJsonObject } from '../../../shared/system/jsonObject';

/** What a skill tool call did to a skill, once its result says it worked. */
export interface SkillTouch {
  readonly name: string;
  readonly action: 'loaded' | 'ran';
}


/** `category/name` is how the tools accept an ambiguous name; the statistics are kept by the bare name. */
function bareName(written: string): string {
  const trimmed = written.trim();
  return trimmed.slice(trimmed.lastIndexOf('/') + 1);
}

/**
 * The skill a `skill_view` or `skill_run` call loaded or ran, judged by its result: a refused or
 * failed view loaded nothing. skill_view's result names the skill it resolved (so a qualified or
 * differently cased name counts for the right skill); skill_run's does not, so its argument counts.
 * A failed run still ran the skill: the model chose it, which is what triggering is about.
 */
export function skillTouchOf(call: Pick<ToolCall, 'name' | 'arguments'>, resultText: string): SkillTouch | undefined {
  if (call.name !== 'skill_view' && call.name !== 'skill_run') return undefined;
  const args = parseJsonObject(call.arguments);
  const written = typeof args?.['name'] === 'string' ? args['name'] : '';
  const result = parseJsonObject(resultText);
  if (call.name === 'skill_view') {
    if (!result || result['success'] === false) return undefined;
    const name = typeof result['name'] === 'string' ? result['name'] : bareName(written);
    return name ? { name, action: 'loaded' } : undefined;
  }
  // A run the executor refused before starting (unknown skill, bad arguments) says so without a trace id.
  if (!result || (result['success'] === false && result['trace_id'] === undefined)) return undefined;
  const name = bareName(written);
  return name ? { name, action: 'ran' } : undefined;
}

/**
 * Which skills one turn suggested, loaded and ran, from the names suggested with the user message
 * and the messages the turn added (assistant calls and their tool results).
 */
export function turnTriggers(suggested: readonly string[], added: readonly ChatMessage[]): TurnTriggers {
  const results = new Map<string, string>();
  for (const message of added) if (message.role === 'tool') results.set(message.toolCallId, message.content);
  const loaded = new Set<string>();
  const run = new Set<string>();
  for (const message of added) {
    if (message.role !== 'assistant') continue;
    for (const call of message.toolCalls ?? []) {
      const result = results.get(call.id);
      const touch = result === undefined ? undefined : skillTouchOf(call, result);
      if (touch?.action === 'loaded') loaded.add(touch.name);
      else if (touch?.action === 'ran') run.add(touch.name);
    }
  }
  return { suggested: [...new Set(suggested)], loaded: [...loaded], run: [...run] };
}

/**
 * Counts one finished chat turn in the per-skill statistics ("suggested 14×, loaded 9×"). The
 * chat calls it once a turn has ended (stopped and failed turns too: what was suggested and
 * loaded before the end still happened).
 */
export function recordTurnTriggers(usage: { recordTurn(turn: TurnTriggers): void }, turn: TurnTriggers): void {
  if (turn.suggested.length === 0 && turn.loaded.length === 0 && turn.run.length === 0) return;
  usage.recordTurn(turn);
}
