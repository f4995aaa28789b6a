import type { FileSystemPort } from '../../base/fileSystemPort';
import type { Logger } from '../../base/logger';
import type { SkillRoot } from '../../base/skillRoots';
import type { SkillIndex } from '../index/skillIndex';
import type { SkillSearch } from '../search/skillSearch';

/** What the skill tools work on: the files, the index and, when the owner keeps one, the search. */
export interface SkillToolContext {
  readonly fs: FileSystemPort;
  readonly index: SkillIndex;
  /** Kept in sync by its owner; without it, queries rank over a search built for the call. */
  readonly search?: SkillSearch;
  readonly logger?: Logger;
  /** The configured skill roots, for where `create` writes; defaults to the index's roots. */
  readonly roots?: readonly SkillRoot[];
  /** Told about every successful view and write, for the per-skill usage statistics. */
  readonly usage?: { record(name: string, kind: 'view' | 'edit' | 'create'): void };
}
