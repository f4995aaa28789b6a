import { searchTerms } from './searchText';

/**
 * Words and short phrases people use for the same thing in requests about software work. Each group
 * is one meaning: a query word (or phrase) of a group also searches for the others, with a lower
 * weight (see skillSearch.ts). Only words that can stand in for each other in most sentences belong
 * here: "make" and "create" do, "test" and "check" do not (a "check" is also a CI check). Written
 * for this project, not taken from a thesaurus; British and American spellings are one group each,
 * since stemming does not merge them ("optimise" → "optimis", "optimize" → "optim").
 */
const GROUPS: readonly (readonly string[])[] = [
  ['photo', 'photograph', 'image', 'picture', 'pic', 'img'],
  ['remove', 'delete', 'erase'],
  ['make', 'create', 'generate'],
  ['doc', 'document', 'documentation'],
  ['pr', 'pull request', 'merge request'],
  ['test', 'spec'],
  ['repo', 'repository'],
  ['config', 'configuration', 'configure'],
  ['db', 'database'],
  ['app', 'application'],
  ['auth', 'authentication', 'authenticate'],
  ['login', 'signin', 'logon'],
  ['javascript', 'js'],
  ['typescript', 'ts'],
  ['python', 'py'],
  ['kubernetes', 'k8s'],
  ['env', 'environment'],
  ['folder', 'directory', 'dir'],
  ['video', 'movie', 'footage', 'film'],
  ['audio', 'sound'],
  ['speech', 'voice'],
  ['transcribe', 'transcript', 'transcription'],
  ['email', 'mail'],
  ['message', 'msg'],
  ['sms', 'text message'],
  ['chart', 'plot'],
  ['slide', 'deck', 'presentation'],
  ['spreadsheet', 'workbook'],
  ['website', 'site', 'webpage', 'web page'],
  ['cost', 'price', 'pricing', 'spend', 'expense', 'bill'],
  ['run', 'execute'],
  ['check', 'verify', 'validate'],
  ['summary', 'summarize', 'summarise', 'recap', 'tldr'],
  ['translate', 'translation', 'localize', 'localise', 'localization', 'localisation', 'i18n'],
  ['upgrade', 'update'],
  ['monitor', 'watch'],
  ['cli', 'command line', 'terminal'],
  ['mac', 'macos', 'osx'],
  ['phone', 'smartphone', 'mobile'],
  ['scrape', 'crawl'],
  ['search', 'find', 'lookup'],
  ['download', 'fetch'],
  ['resize', 'shrink'],
  ['gpu', 'graphics card'],
  ['ml', 'machine learning'],
  ['ai', 'artificial intelligence'],
  ['llm', 'large language model'],
  ['vuln', 'vulnerability'],
  ['perf', 'performance'],
  ['bug', 'defect'],
  ['fix', 'repair'],
  ['secret', 'credential'],
  ['optimize', 'optimise'],
  ['analyze', 'analyse'],
  ['visualize', 'visualise'],
  ['organize', 'organise'],
  ['customize', 'customise'],
  ['initialize', 'initialise'],
  ['serialize', 'serialise'],
  ['authorize', 'authorise'],
  ['color', 'colour'],
  ['behavior', 'behaviour'],
  ['license', 'licence'],
  ['catalog', 'catalogue'],
  // Everyday words of requests that name the same thing.
  ['buy', 'purchase', 'acquire', 'acquisition'],
  ['ticket', 'issue'],
  ['light', 'lamp', 'bulb'],
  ['debug', 'troubleshoot', 'diagnose'],
  ['comic', 'cartoon'],
  ['zip', 'compress'],
  ['headphones', 'earphones', 'earbuds'],
  ['editor', 'ide'],
  ['eps', 'earnings per share'],
  ['pii', 'personal data', 'personal information', 'personal details'],
  ['slow', 'sluggish', 'laggy'],
  ['song', 'tune'],
  ['shortcut', 'hotkey', 'keybinding'],
  ['password', 'passphrase'],
  ['wiki', 'knowledge base'],
  ['typo', 'misspelling'],
  ['proofread', 'copyedit'],
  ['rewrite', 'rephrase', 'reword', 'paraphrase'],
  ['shorten', 'condense'],
  ['employee', 'staff'],
  ['refactor', 'restructure'],
  ['settings', 'preferences'],
  ['screenshot', 'screen capture', 'screengrab'],
  ['blog post', 'article'],
  ['workout', 'exercise'],
  ['diet', 'nutrition'],
  ['location', 'whereabouts'],
];

/** A term searched for because it means the same as `source`, a term of the query itself. */
export interface SynonymExpansion {
  readonly term: string;
  readonly source: string;
}

/** Every member of a group as normalized terms: one for a word, several for a phrase. */
type Member = readonly string[];

interface Table {
  /** The groups a one-term member belongs to, by that term. */
  readonly byTerm: ReadonlyMap<string, readonly (readonly Member[])[]>;
  /** The phrases (members of two or more terms) starting with a term, with their groups. */
  readonly phrases: ReadonlyMap<string, readonly { readonly phrase: Member; readonly group: readonly Member[] }[]>;
}

let table: Table | undefined;

function built(): Table {
  if (table) return table;
  const byTerm = new Map<string, Member[][]>();
  const phrases = new Map<string, { phrase: Member; group: Member[] }[]>();
  for (const words of GROUPS) {
    // The same normalization as the index: members are compared with the query's terms.
    const group = words.map((word) => searchTerms(word)).filter((member) => member.length > 0);
    for (const member of group) {
      const [first] = member;
      if (first === undefined) continue;
      if (member.length === 1) byTerm.set(first, [...(byTerm.get(first) ?? []), group]);
      else phrases.set(first, [...(phrases.get(first) ?? []), { phrase: member, group }]);
    }
  }
  table = { byTerm, phrases };
  return table;
}

/**
 * The synonyms of a query's terms (distinct, normalized, in query order, as queryTerms gives them):
 * for each term, and each phrase of consecutive terms, the other members of its groups, minus terms
 * the query already has. At most `limit`, in query order; each names the query term it stands for
 * (the first word, for a phrase).
 */
export function synonymExpansions(terms: readonly string[], limit: number): SynonymExpansion[] {
  const { byTerm, phrases } = built();
  const seen = new Set(terms);
  const out: SynonymExpansion[] = [];
  const add = (group: readonly Member[], source: string, except: Member) => {
    for (const member of group) {
      if (member === except) continue;
      for (const term of member) {
        if (out.length >= limit) return;
        if (seen.has(term)) continue;
        seen.add(term);
        out.push({ term, source });
      }
    }
  };
  for (let i = 0; i < terms.length && out.length < limit; i++) {
    const term = terms[i] as string;
    for (const group of byTerm.get(term) ?? []) add(group, term, group.find((member) => member.length === 1 && member[0] === term) ?? []);
    for (const { phrase, group } of phrases.get(term) ?? []) {
      if (phrase.every((word, at) => terms[i + at] === word)) add(group, term, phrase);
    }
  }
  return out;
}
