import * as path from 'node:path';
import type { FileSystemPort } from '../../base/fileSystemPort';
import type { Checked } from '../model/skillPaths';
import { listSkillFiles } from '../model/skillPaths';
import { SKILL_FILE } from '../model/skillTypes';

export interface SkillFolderWrite {
  /** The new skill folder; it must not exist yet. */
  readonly dir: string;
  readonly skillText: string;
  /** A skill or template folder whose other files are copied along (not SKILL.md, hidden files or nested skills). */
  readonly copyFrom?: string;
}

/**
 * Creates a skill folder. Every file is written atomically, and SKILL.md last: the folder becomes a
 * skill (for the index and its watchers) only once everything it links to is in place. On a
 * failure the partly written folder is removed again, so nothing half-made is left behind.
 */
export async function writeSkillFolder(fs: FileSystemPort, write: SkillFolderWrite): Promise<Checked<readonly string[]>> {
  if (await fs.lstat(write.dir)) {
    return { ok: false, error: `The folder ${write.dir} already exists; choose another name.` };
  }
  let files: readonly string[] = [];
  if (write.copyFrom) {
    const listed = await listSkillFiles(fs, write.copyFrom);
    if (listed.truncated) {
      return { ok: false, error: `${write.copyFrom} holds more than ${listed.files.length} files; copy it by hand.` };
    }
    files = listed.files.map((file) => file.path);
  }
  try {
    await fs.mkdir(write.dir);
    for (const relative of files) {
      const from = path.join(write.copyFrom as string, ...relative.split('/'));
      await fs.writeFileAtomic(path.join(write.dir, ...relative.split('/')), await fs.readFile(from));
    }
    await fs.writeFileAtomic(path.join(write.dir, SKILL_FILE), write.skillText);
  } catch (error) {
    await fs.remove(write.dir).catch(() => undefined);
    throw error;
  }
  return { ok: true, value: [SKILL_FILE, ...files] };
}
