import type { CompactionInfo } from '../../core/agent/compactionInfo';
import type { SessionCompactionRecord } from '../../core/sessions/sessionRecords';
import type { ChatItem } from '../../shared/protocol';

type CompactionItem = Extract<ChatItem, { kind: 'compaction' }>;

const MAX_SUMMARY_CHARS = 200_000;

/** The divider while the summary is being written. */
export function compactionRunning(id: string, reason: CompactionInfo['reason']): CompactionItem {
  return { kind: 'compaction', id, state: 'running', reason, messagesCompacted: 0, summaryTokens: 0, skills: [], memoryWrites: [] };
}

/** The divider once the older messages were replaced: "N messages → summary (K tokens)", opening to the summary. */
export function compactionDone(id: string, info: CompactionInfo): CompactionItem {
  return {
    kind: 'compaction',
    id,
    state: 'done',
    reason: info.reason,
    messagesCompacted: info.messagesCompacted,
    summaryTokens: info.summaryTokens,
    summary: info.summary.length > MAX_SUMMARY_CHARS ? `${info.summary.slice(0, MAX_SUMMARY_CHARS)}…` : info.summary,
    skills: info.skills.map((skill) => (skill.attached === 'full' ? skill.name : `${skill.name} (pointer: ${skill.reason ?? 'too large to attach'})`)),
    memoryWrites: [...info.memoryWrites],
  };
}

/** The summary could not be written: the conversation is unchanged, and the divider says so. */
export function compactionFailed(id: string, reason: CompactionInfo['reason'], error: string): CompactionItem {
  return { ...compactionRunning(id, reason), state: 'failed', error };
}

/** A logged compaction, as the divider a resumed chat shows where it happened. */
export function compactionFromRecord(record: SessionCompactionRecord): CompactionItem {
  return compactionDone(`compaction-${record.id}`, {
    id: record.id,
    at: record.at,
    reason: record.reason ?? 'threshold',
    messagesCompacted: record.messagesCompacted,
    summary: record.summary,
    summaryTokens: record.summaryTokens,
    tokensBefore: record.tokensBefore,
    tokensAfter: record.tokensAfter,
    skills: record.skills ?? [],
    memoryWrites: record.memoryWrites ?? [],
  });
}
