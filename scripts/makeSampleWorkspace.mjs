// Creates the sample workspace that `npm start` opens and the tests use: a few skills made from
// skills-templates/ under .agents/skills, an AGENTS.md and a README. Usage:
//   node scripts/makeSampleWorkspace.mjs <destination> [--force]
// Without --force an existing destination is left as it is (a person may have edited it).
import { cp, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const templates = path.join(root, 'skills-templates');

const skills = [
  {
    template: 'instructions',
    category: 'docs',
    vars: {
      name: 'write-changelog-entry',
      title: 'Write a changelog entry',
      description:
        'Writes a CHANGELOG.md entry for the current change in Keep a Changelog style. Use when the user asks to update the changelog or prepare release notes.',
    },
  },
  {
    template: 'script',
    category: 'ops',
    vars: {
      name: 'count-files',
      title: 'Count files in a folder',
      description: 'Counts the entries of a workspace folder with a small Python script. Use when the user asks how big a folder is.',
    },
  },
  {
    template: 'workflow',
    category: 'release',
    vars: {
      name: 'prepare-release',
      title: 'Prepare a release',
      description:
        'Checks the build folder, then drafts the changelog entry. Use when the user asks to prepare or cut a release.',
      first_skill: 'count-files',
      second_skill: 'write-changelog-entry',
    },
  },
];

const agentsMd = `# Instructions for agents

This is Skillwright's sample workspace.

- Project skills live in \`.agents/skills/\`; load a matching one before acting.
- Keep answers short and show the commands you ran.
- Never commit or push without asking.
`;

const readme = `# Sample workspace

Opened by \`npm start\`. It holds three example skills under \`.agents/skills/\` (made from the
extension's \`skills-templates/\`) and an \`AGENTS.md\` with project instructions.
`;

function fill(text, vars, file) {
  const filled = text.replace(/\{\{(\w+)\}\}/g, (whole, key) => (key in vars ? vars[key] : whole));
  const left = filled.match(/\{\{\w+\}\}/g);
  if (left) {
    throw new Error(`${file}: no value for ${[...new Set(left)].join(', ')}`);
  }
  return filled;
}

async function exists(file) {
  try {
    await stat(file);
    return true;
  } catch {
    return false;
  }
}

export async function makeSampleWorkspace(destination, { force = false } = {}) {
  const dest = path.resolve(destination);
  if (await exists(dest)) {
    if (!force) {
      return dest;
    }
    await rm(dest, { recursive: true, force: true });
  }
  for (const skill of skills) {
    const folder = path.join(dest, '.agents', 'skills', skill.category, skill.vars.name);
    await mkdir(folder, { recursive: true });
    // Support folders (scripts/, references/ …) come along unchanged; SKILL.md gets its values.
    await cp(path.join(templates, skill.template), folder, { recursive: true });
    const templateFile = path.join(templates, skill.template, 'SKILL.md');
    const text = await readFile(templateFile, 'utf8');
    await writeFile(path.join(folder, 'SKILL.md'), fill(text, skill.vars, templateFile));
  }
  await writeFile(path.join(dest, 'AGENTS.md'), agentsMd);
  await writeFile(path.join(dest, 'README.md'), readme);
  return dest;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const target = args.find((arg) => !arg.startsWith('--'));
  if (!target) {
    console.error('usage: node scripts/makeSampleWorkspace.mjs <destination> [--force]');
    process.exit(2);
  }
  const made = await makeSampleWorkspace(target, { force: args.includes('--force') });
  console.log(made);
}
