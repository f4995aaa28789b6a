import type { ChatItem, ContextMeter } from '../shared/protocol';

/* The words of the chat's context meter and compaction divider: no DOM here, so Node tests them. */

type CompactionItem = Extract<ChatItem, { kind: 'compaction' }>;

const plural = (n: number, word: string): string => `${n.toLocaleString('en-US')} ${word}${n === 1 ? '' : 's'}`;

/** The divider's one line, as the chat shows it and a screen reader reads it. */
export function compactionTitle(item: CompactionItem): string {
  switch (item.state) {
    case 'running':
      return 'Compacting the conversation…';
    case 'failed':
      return `Compaction failed: ${item.error ?? 'the model gave no summary'}. Nothing was lost.`;
    case 'done':
      return `Conversation compacted: ${plural(item.messagesCompacted, 'message')} → summary (${plural(item.summaryTokens, 'token')})`;
  }
}

/** 12,345 → "12k", 1,234 → "1.2k": the meter's label has room for a few characters only. */
export function shortTokens(n: number): string {
  if (n < 1_000) return String(n);
  const k = n / 1_000;
  return `${k < 10 ? Math.round(k * 10) / 10 : Math.round(k)}k`;
}

/** Below the threshold, past it (compaction is due: amber), or past the window itself. */
export function meterLevel(context: ContextMeter): 'ok' | 'high' | 'over' {
  if (context.total > context.window) return 'over';
  return context.total >= context.threshold ? 'high' : 'ok';
}
