import type { FileSystemPort } from '../base/fileSystemPort';
import type { WorkspaceFolderRef } from '../base/skillRoots';
import { scanText } from '../security/threatScanner';
import { readInstructionFiles } from './agentAssembly';
import type { SystemPrompt } from './systemPrompt';
import { buildSystemPrompt } from './systemPrompt';

export interface ParticipantPromptParts {
  readonly fs: FileSystemPort;
  /** The folders whose instruction files count; none in Restricted Mode. */
  readonly folders: readonly WorkspaceFolderRef[];
  /** The budgeted skills catalog (the same one our agent's prompt carries). */
  readonly catalog: string;
  readonly toolNames: readonly string[];
  /** The memory snapshot's text. */
  readonly memory: string;
  readonly date: string;
  readonly trusted: boolean;
}

/** Our agent's layered prompt (stable: identity, guidance, catalog; context: instruction files; volatile: memory, date) for the participant. */
export async function participantSystemPrompt(parts: ParticipantPromptParts): Promise<SystemPrompt> {
  const instructionFiles = await readInstructionFiles(parts.fs, parts.trusted ? parts.folders : []);
  return buildSystemPrompt({
    catalog: parts.catalog,
    toolNames: parts.toolNames,
    instructionFiles,
    memory: parts.memory,
    userProfile: '',
    date: parts.date,
    trusted: parts.trusted,
    scan: (text) => scanText(text, { context: 'instructions' }),
  });
}
