/**
 * Exfiltration by network command: curl, wget, nc, scp, fetch, axios, requests or
 * Invoke-WebRequest carrying a secret. Where the secret sits decides: in a credential position
 * (authorization header, key parameter, basic auth) it is ordinary API use unless a vendor's key
 * goes to another vendor's host; anywhere else (URL, body, upload) it is flagged.
 */
import { SECRET_FILE, isSecretName } from './secretVocabulary';

/** A network client invoked with arguments (not the bare word in prose such as "curl, jq and file"). */
const NETWORK_COMMAND =
  /\b(?:curl|wget|Invoke-WebRequest|Invoke-RestMethod|iwr|irm|ncat|netcat|socat|nc|scp|ftp)(?=\s+(?:-|["'$@]|https?:|[\w.-]+\.[a-z]{2,}\b|\d+\.\d+\.\d+\.\d+|[\w-]+:\d|localhost))|\b(?:fetch|axios(?:\.\w+)?|requests\.(?:get|post|put|patch)|httpx\.(?:get|post|put)|urlopen)\s*\((?=\s*(?:[\w$'"{[]|`(?![,\s])))/gi;

/**
 * Secret references. Groups: 1 a GitHub Actions secret, 2-8 variable names (PowerShell, Node,
 * Python, shell); no group for the whole environment or a credentials file.
 */
const SECRET_REFERENCE = new RegExp(
  [
    '\\$\\{\\{\\s*secrets\\.([\\w-]+)\\s*\\}\\}',
    '\\$\\((?:env|printenv|set)\\)|`(?:env|printenv)`',
    `@?["']?${SECRET_FILE}`,
    '\\$env:(\\w+)',
    'process\\.env(?:\\.(\\w+)|\\[["\'](\\w+)["\']\\])',
    'os\\.(?:environ\\[["\'](\\w+)["\']\\]|environ\\.get\\(["\'](\\w+)["\']|getenv\\(["\'](\\w+)["\'])',
    '\\$\\{?([A-Za-z_]\\w*)(?![\\w.])\\}?',
  ].join('|'),
  'gi',
);

/** Text right before a secret that puts it where credentials go: a header, a key parameter, basic auth. */
const AUTH_POSITION = new RegExp(
  [
    `\\b(?:authorization|proxy-authorization|x-api-key|api-key|apikey|x-auth-token|private-token|x-goog-api-key|x-[\\w-]*(?:key|token))["'\`]?\\s*[:=]\\s*(?:f?["'\`]\\s*)?(?:(?:bearer|token|basic)\\s*)?`,
    `[?&](?:key|api_?key|apikey|api-key|access_token|token|auth|app_?key|app_?id|client_secret|client_id|secret|password|pass)=`,
    `["']?\\b(?:api_?key|apikey|access_?token|token|auth_?token|client_?secret|password|secret)["']?\\s*[:=]\\s*["']?`,
    `(?:^|\\s)(?:-u|--user|--oauth2-bearer|-Credential|-Token)[\\s=]+["']?(?:[\\w$.{}-]*:)?`,
  ]
    .map((alt) => `(?:${alt})`)
    .join('|') + '(?:\\$?\\{)?\\s*$',
  'i',
);

/** Name prefixes that are not a vendor (API_KEY, ACCESS_TOKEN, MY_TOKEN…). */
const GENERIC_PREFIX = /^(?:api|access|auth|secret|token|key|bearer|personal|private|client|app|my|default|service|user|admin|bot|the|env|local|dev|prod|test|read|write|refresh|session|id)$/i;
const VENDOR_ALIASES: Readonly<Record<string, string>> = {
  gh: 'github', hf: 'huggingface', cf: 'cloudflare', aws: 'amazonaws', gcp: 'googleapis', az: 'azure', gl: 'gitlab', tg: 'telegram', oai: 'openai',
};

/** Hosts on this machine or a private network: a local service, not an outside collector. */
const LOCAL_HOST = /^(?:localhost|127\.\d+\.\d+\.\d+|0\.0\.0\.0|\[?::1\]?|10\.\d+\.\d+\.\d+|192\.168\.\d+\.\d+|172\.(?:1[6-9]|2\d|3[01])\.\d+\.\d+|host\.docker\.internal|[\w-]+\.(?:local|internal|lan))$/;

/** The service a secret's name belongs to (OPENAI_API_KEY → openai), if it says. */
function vendorOf(name: string): string | undefined {
  const first = name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').split(/[_\-.]+/).filter(Boolean)[0];
  if (!first || GENERIC_PREFIX.test(first) || first.length < 2 || first.toLowerCase() === name.toLowerCase()) return undefined;
  const lower = first.toLowerCase();
  return VENDOR_ALIASES[lower] ?? lower;
}

/** The command's text: to the end of the line, over `\` or backtick continuations, or to the call's closing paren. */
function commandSpan(text: string, start: number, isCall: boolean): string {
  if (isCall) {
    let depth = 0;
    for (let i = text.indexOf('(', start); i >= 0 && i < text.length && i < start + 800; i++) {
      const ch = text[i];
      if (ch === '(') depth++;
      else if (ch === ')' && --depth === 0) return text.slice(start, i + 1);
    }
    return text.slice(start, start + 400);
  }
  let lineStart = start;
  while (lineStart < text.length && lineStart < start + 800) {
    const nl = text.indexOf('\n', lineStart);
    if (nl < 0) return text.slice(start, Math.min(text.length, start + 800));
    if (!/[\\`^]\s*$/.test(text.slice(lineStart, nl))) return text.slice(start, nl);
    lineStart = nl + 1;
  }
  return text.slice(start, lineStart);
}

/** Why a secret reference in a network command looks like exfiltration, or undefined when it is ordinary API use. */
function exfilReason(span: string, ref: RegExpExecArray): string | undefined {
  const actionsSecret = ref[1];
  const name = actionsSecret ?? ref.slice(2).find((g) => g !== undefined);
  if (name === undefined) return `a network command sends ${ref[0].trim()}`;
  if (actionsSecret === undefined && !isSecretName(name)) return undefined;
  // A secret holding the address itself (a webhook URL) is the destination, not the payload.
  if (/(?:URL|URI|ENDPOINT|HOST|WEBHOOK)$/i.test(name)) return undefined;
  if (!AUTH_POSITION.test(span.slice(Math.max(0, ref.index - 80), ref.index))) return `a network command sends ${ref[0].trim()} outside an authorization header`;
  // In a credential position, a vendor's key is expected to go to that vendor's host.
  const vendor = vendorOf(name);
  if (!vendor) return undefined;
  const hosts = Array.from(span.matchAll(/https?:\/\/([^/\s"'`:?#)]+)/gi), (h) => (h[1] ?? '').toLowerCase()).filter((h) => !/[${}<>]/.test(h) && !LOCAL_HOST.test(h));
  const stranger = hosts.find((host) => !host.replace(/[.-]/g, '').includes(vendor));
  return stranger ? `a network command sends ${ref[0].trim()} to ${stranger}` : undefined;
}

/**
 * Network commands in `text` that carry a secret where it does not belong, each with the reason.
 * Callers decide about negated advice ("never curl … $TOKEN").
 */
export function* findNetworkExfiltration(text: string): Iterable<{ index: number; length: number; detail: string }> {
  const commands = new RegExp(NETWORK_COMMAND.source, NETWORK_COMMAND.flags);
  for (let m = commands.exec(text); m; m = commands.exec(text)) {
    const span = commandSpan(text, m.index, m[0].endsWith('('));
    const refs = new RegExp(SECRET_REFERENCE.source, SECRET_REFERENCE.flags);
    for (let r = refs.exec(span); r; r = refs.exec(span)) {
      const reason = exfilReason(span, r);
      if (!reason) continue;
      yield { index: m.index, length: span.length, detail: reason };
      break;
    }
  }
}
