import { isPlainObject } from '../skills/model/skillParser';
import type { ExecutableSkill } from './executableSkill';

/**
 * Default deny (DESIGN §4): a skill that starts a process or calls the network must say so under
 * `permissions:`. Declaring is not granting: the person still approves each run (or grants it for
 * the session or the workspace). For HTTP skills a declared host list must include the endpoint's
 * host, so a copied skill cannot quietly point somewhere else.
 */
export function permissionProblem(skill: ExecutableSkill): string | undefined {
  if (skill.kind !== 'script' && skill.kind !== 'http') return undefined;
  const declared = skill.permissions;
  const example =
    skill.kind === 'script'
      ? 'permissions:\n  commands: true      # runs scripts/…\n  files: read          # what it touches'
      : `permissions:\n  network: [${hostOf(skill.endpoint) ?? 'api.example.com'}]`;
  if (declared === undefined || (Array.isArray(declared) && declared.length === 0) || (isPlainObject(declared) && Object.keys(declared).length === 0)) {
    return `the skill "${skill.name}" runs ${skill.kind === 'script' ? `a script (${skill.entry ?? 'entry'})` : `an endpoint (${skill.endpoint ?? ''})`} but declares no permissions, and Skillwright denies by default. Add to its frontmatter:\n${example}`;
  }
  if (skill.kind !== 'http') return undefined;
  const network = networkPermission(declared);
  if (network === false) {
    return `the skill "${skill.name}" calls ${skill.endpoint ?? 'an endpoint'} but its permissions do not allow the network. Add to its frontmatter:\n${example}`;
  }
  const host = hostOf(skill.endpoint);
  if (Array.isArray(network) && host !== undefined && !network.some((allowed) => hostMatches(allowed, host))) {
    return `the skill "${skill.name}" calls ${host}, which its network permission (${network.join(', ')}) does not list. Add the host, or fix the endpoint.`;
  }
  return undefined;
}

/** `true` (any host), a host list, or false when nothing in the permissions mentions the network. */
function networkPermission(declared: unknown): true | false | string[] {
  if (typeof declared === 'string') return /\b(network|http|internet)\b/i.test(declared);
  if (Array.isArray(declared)) {
    return declared.some((item) => typeof item === 'string' && /^(network|http|https|internet)$/i.test(item.trim())) || declared.some((item) => isPlainObject(item) && networkPermission(item) !== false);
  }
  if (!isPlainObject(declared)) return false;
  const value = declared['network'] ?? declared['http'];
  if (value === true || value === 'true' || value === 'any' || value === '*') return true;
  if (typeof value === 'string' && value.trim() !== '') return [value.trim()];
  if (Array.isArray(value)) {
    const hosts = value.filter((item): item is string => typeof item === 'string' && item.trim() !== '').map((item) => item.trim());
    return hosts.length > 0 ? hosts : false;
  }
  if (isPlainObject(value)) return networkPermission({ network: value['hosts'] ?? value['allow'] });
  return false;
}

function hostOf(endpoint: string | undefined): string | undefined {
  if (endpoint === undefined) return undefined;
  try {
    return new URL(endpoint).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

/** `api.example.com`, `*.example.com` and full URLs in the list all work. */
function hostMatches(allowed: string, host: string): boolean {
  let pattern = allowed.trim().toLowerCase();
  if (/^[a-z][a-z0-9+.-]*:\/\//.test(pattern)) pattern = hostOf(pattern) ?? pattern;
  pattern = pattern.replace(/:\d+$/, '');
  if (pattern === '*') return true;
  if (pattern.startsWith('*.')) return host.endsWith(pattern.slice(1));
  return host === pattern;
}
