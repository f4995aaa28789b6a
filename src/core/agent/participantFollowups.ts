import { clipLine } from '../text/clip';
import type { ParticipantFollowup } from './participantTypes';

const MAX_FOLLOWUPS = 3;

const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string' && item.trim() !== '') : []);

/**
 * What to offer after a reply, from the metadata it returned (VS Code hands back a copy, which
 * may be anything): Save as Skill when the reply offered it, the skills a /skills listing or a
 * suggestion named, a summary after search hits.
 */
export function participantFollowups(metadata: unknown): ParticipantFollowup[] {
  if (!metadata || typeof metadata !== 'object') return [];
  const meta = metadata as Record<string, unknown>;
  if (meta['failed'] === true || meta['cancelled'] === true) return [];
  const out: ParticipantFollowup[] = [];
  switch (meta['command']) {
    case undefined:
      if (meta['saveOffer'] === true) out.push({ prompt: '', label: 'Save this conversation as a skill', command: 'save' });
      for (const name of strings(meta['suggested']).slice(0, 2)) out.push({ prompt: `Use the ${name} skill for this.`, label: `Use the ${name} skill` });
      break;
    case 'skills':
      for (const name of strings(meta['listed'])) out.push({ prompt: `What does the ${name} skill do, and when should I use it?`, label: `Explain ${name}` });
      break;
    case 'search': {
      const query = typeof meta['query'] === 'string' ? clipLine(meta['query'].trim(), 80) : '';
      if (query && typeof meta['hits'] === 'number' && meta['hits'] > 0) out.push({ prompt: `What did we find out about "${query}" in those sessions, and what worked?`, label: 'Sum up what worked' });
      break;
    }
    case 'save':
      for (const name of strings(meta['listed']).slice(0, 1)) out.push({ prompt: name, label: `Show ${name} in /skills`, command: 'skills' });
      break;
    default:
      break;
  }
  return out.slice(0, MAX_FOLLOWUPS);
}
