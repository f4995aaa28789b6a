import type { SessionData } from '../../../src/core/sessions/sessionLog';
import type { SessionMessageRecord } from '../../../src/core/sessions/sessionRecords';

/** Builds sessions for the "save as a skill" tests the way the agent loop records them. */
export class TranscriptBuilder {
  private readonly messages: SessionMessageRecord[] = [];
  private next = 0;

  user(content: string): this {
    return this.add({ role: 'user', content });
  }

  say(content: string, status?: 'stopped' | 'failed'): this {
    return this.add({ role: 'assistant', content, ...(status ? { status } : {}) });
  }

  /** An assistant message with one tool call and the tool's result right after it. */
  call(name: string, args: Record<string, unknown> | string, result: Record<string, unknown> | string, text = ''): this {
    const id = `call-${this.next + 1}`;
    const argText = typeof args === 'string' ? args : JSON.stringify(args);
    this.add({ role: 'assistant', content: text, toolCalls: [{ id, name, arguments: argText }] });
    return this.add({ role: 'tool', toolCallId: id, toolName: name, content: typeof result === 'string' ? result : JSON.stringify(result) });
  }

  /** A run_command call with its exit code and output. */
  run(command: string, exitCode: number, output = ''): this {
    return this.call('run_command', { command }, { success: true, command, cwd: '.', exit_code: exitCode, output, duration_seconds: 1.2 });
  }

  ok(name: string, args: Record<string, unknown>): this {
    return this.call(name, args, { success: true });
  }

  fail(name: string, args: Record<string, unknown>, error: string): this {
    return this.call(name, args, { success: false, error });
  }

  session(id = 'session-1', title?: string): SessionData {
    return { id, messages: [...this.messages], usage: [], skippedLines: 0, ...(title ? { title } : {}) };
  }

  private add(message: Omit<SessionMessageRecord, 'type' | 'id' | 'at'>): this {
    this.next++;
    this.messages.push({ type: 'message', id: `m${this.next}`, at: new Date(Date.UTC(2026, 0, 1, 0, 0, this.next)).toISOString(), ...message } as SessionMessageRecord);
    return this;
  }
}

/** A typical fix: read, a failing test run, an edit, a passing run, and a closing reply. */
export function parserFixSession(): SessionData {
  return new TranscriptBuilder()
    .user('Can you fix the failing parser tests? `npm test` is red since yesterday.')
    .ok('read_file', { path: 'src/parser.ts' })
    .ok('read_file', { path: 'test/parser.test.ts' })
    .run('npm test', 1, 'parser\n  1) keeps trailing commas\nAssertionError: expected 3 to equal 4\n1 failing')
    .say('The tokenizer drops the last element when a trailing comma follows it.')
    .fail('edit_file', { path: 'src/parser.ts', old_string: 'x', new_string: 'y' }, 'old_string was not found; read the file again')
    .ok('read_file', { path: 'src/parser.ts' })
    .ok('edit_file', { path: 'src/parser.ts', old_string: 'if (i < n - 1)', new_string: 'if (i < n)' })
    .run('npm test', 0, '42 passing')
    .say('Fixed: the loop in `parseList` stopped one element early. All 42 tests pass now.\n\nSave as skill: fix-parser-tests')
    .session('s-parser', 'Fix failing parser tests');
}
