import type { ChatMessage } from '../llm/chatTypes';
import type { SessionCompactionEntry, SessionData } from './sessionLog';
import { toChatMessages } from './sessionLog';

/**
 * A compaction already inside a session's history (a resumed session): the first
 * `replacementMessages` messages after the system prompt are its summary, and its skill and
 * memory lists carry over into the next compaction.
 */
export interface PriorCompaction {
  readonly replacementMessages: number;
  readonly skills: readonly string[];
  readonly memoryWrites: readonly string[];
}

export interface ResumedHistory {
  /** What the model sees after the system prompt: summary, re-attached skills, then the kept and later messages. */
  readonly messages: ChatMessage[];
  /** The compaction the history starts from; give it to AgentSession as `priorCompaction`. */
  readonly prior?: PriorCompaction;
  /** Why a compaction record was passed over (then an earlier one, or the full history, is used). */
  readonly skipped?: readonly string[];
}

/**
 * The history a resumed session sends after its stored system prompt. Without a compaction it is
 * every message; with one, the compaction's own messages (summary and re-attached skills), then
 * the messages it kept and everything after it. A record that does not fit the messages around
 * it (a damaged or hand-edited file) is passed over with a reason, so nothing is ever lost: the
 * worst case is the full history, which the next request compacts again.
 */
export function compactedHistory(session: SessionData): ResumedHistory {
  const all = toChatMessages(session).slice(session.header ? 1 : 0);
  const entries = session.compactions ?? [];
  const skipped: string[] = [];
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i] as SessionCompactionEntry;
    const problem = problemOf(entry, all);
    if (problem !== undefined) {
      skipped.push(`compaction ${entry.record.id.slice(0, 40)} at ${entry.record.at.slice(0, 40)}: ${problem}; ${i > 0 ? 'an earlier one is used' : 'the full history is used'}`);
      continue;
    }
    const { record, messagesBefore } = entry;
    const replacement: ChatMessage[] = record.messages.map((message) => ({ role: message.role, content: message.content }));
    return {
      messages: [...replacement, ...all.slice(messagesBefore - record.kept)],
      prior: {
        replacementMessages: replacement.length,
        skills: (record.skills ?? []).map((skill) => skill.name),
        memoryWrites: record.memoryWrites ?? [],
      },
      ...(skipped.length > 0 ? { skipped } : {}),
    };
  }
  return { messages: all, ...(skipped.length > 0 ? { skipped } : {}) };
}

function problemOf(entry: SessionCompactionEntry, all: readonly ChatMessage[]): string | undefined {
  const { record, messagesBefore } = entry;
  if (!Number.isInteger(record.kept) || record.kept < 0) return '"kept" is not a count of messages';
  if (record.kept > messagesBefore) return `it keeps ${record.kept} messages but only ${messagesBefore} come before it`;
  if (record.messages.length === 0) return 'it has no summary messages';
  const first = all[messagesBefore - record.kept];
  // A tool result without the call it answers would be refused by every server.
  if (first?.role === 'tool') return 'the first message it keeps is a tool result, cut off from its call';
  return undefined;
}
