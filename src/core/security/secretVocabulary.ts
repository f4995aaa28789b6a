/**
 * What counts as a secret, shared by the threat patterns: variable names that hold one, files that
 * hold credentials, and the placeholders documentation uses instead of real tokens.
 */

const SECRET_NAME_PART = /^(KEY|KEYS|APIKEY|TOKEN|TOKENS|SECRET|SECRETS|PASSWORD|PASSWD|PASS|PWD|PAT|CREDENTIAL|CREDENTIALS|CREDS|COOKIE|COOKIES|PRIVATE)$/i;

/** Whether an environment-variable-like name looks like it holds a secret (OPENAI_API_KEY, ghToken…). */
export function isSecretName(name: string): boolean {
  const parts = name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .split(/[_\-.]+/)
    .filter(Boolean);
  return parts.some((part) => SECRET_NAME_PART.test(part));
}

/** Files under ~/.ssh that are private: not public keys, known hosts or the client config. */
const SSH_PRIVATE = '(?![\\w.-]*\\.pub\\b|known_hosts\\b|config\\b|authorized_keys\\b)[\\w.-]+';

/** Files that hold credentials. `.env.example` and friends are templates, not secrets. */
export const SECRET_FILE =
  '(?:(?:~|\\$HOME|\\$\\{HOME\\}|%USERPROFILE%|\\$env:USERPROFILE)?[\\\\/]?(?:\\.ssh[\\\\/]' + SSH_PRIVATE + '|\\bid_(?:rsa|dsa|ecdsa|ed25519)\\b(?!\\.pub)' +
  '|(?<![\\w.-])\\.env(?:\\.(?:local|production|prod|development|dev|staging|test))?(?![\\w.-])' +
  '|\\.aws[\\\\/]credentials\\b|\\bcredentials\\.json\\b|\\.npmrc\\b|\\.pypirc\\b|\\.netrc\\b|\\.git-credentials\\b' +
  '|\\.docker[\\\\/]config\\.json\\b|\\.kube[\\\\/]config\\b|\\/etc\\/shadow\\b|\\.gnupg[\\\\/]?|\\.config[\\\\/]gh[\\\\/]hosts\\.yml\\b))';

/** The subset whose mere reading is alarming even in plain words ("open ~/.ssh/id_rsa"). */
export const KEY_FILE =
  '(?:(?:~|\\$HOME|\\$\\{HOME\\}|%USERPROFILE%|\\$env:USERPROFILE)?[\\\\/]?(?:\\.ssh[\\\\/]' + SSH_PRIVATE + '|\\bid_(?:rsa|dsa|ecdsa|ed25519)\\b(?!\\.pub)|\\.aws[\\\\/]credentials\\b' +
  '|\\.netrc\\b|\\.git-credentials\\b|\\/etc\\/shadow\\b|\\.gnupg[\\\\/]?))';

/** Placeholders in documentation are not secrets: sk-xxxx…, AKIA…EXAMPLE, ghp_your_token_here. */
export function looksLikePlaceholder(token: string): boolean {
  if (/x{4,}|\*{3,}|\.{3}|<|>|\{|\}|0{6,}|1234|abcd|example|sample|placeholder|redacted|your|dummy|fake|test|here|secret|token/i.test(token)) return true;
  const body = token.replace(/^[a-z]+[-_]/i, '');
  return new Set(body).size < 10;
}
