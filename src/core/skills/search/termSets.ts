/** Distinct terms per record and how many records hold each one (the IDF of `similar`). */
export class TermSets {
  private readonly sets = new Map<string, ReadonlySet<string>>();
  private readonly docFreq = new Map<string, number>();

  clear(): void {
    this.sets.clear();
    this.docFreq.clear();
  }

  set(file: string, terms: readonly string[]): void {
    this.delete(file);
    const set = new Set(terms);
    this.sets.set(file, set);
    for (const term of set) this.docFreq.set(term, (this.docFreq.get(term) ?? 0) + 1);
  }

  delete(file: string): void {
    const set = this.sets.get(file);
    if (!set) return;
    for (const term of set) {
      const count = (this.docFreq.get(term) ?? 1) - 1;
      if (count > 0) this.docFreq.set(term, count);
      else this.docFreq.delete(term);
    }
    this.sets.delete(file);
  }

  /** Cosine of the IDF-weighted binary vectors of `terms` and the record's set, with the shared terms. */
  cosine(terms: ReadonlySet<string>, file: string): { score: number; shared: string[] } {
    const other = this.sets.get(file);
    if (!other || terms.size === 0 || other.size === 0) return { score: 0, shared: [] };
    const shared: string[] = [];
    let dot = 0;
    for (const term of terms) {
      if (!other.has(term)) continue;
      shared.push(term);
      dot += this.idf(term) ** 2;
    }
    return { score: dot / (this.norm(terms) * this.norm(other)), shared };
  }

  private idf(term: string): number {
    return Math.log(1 + (this.sets.size + 1) / ((this.docFreq.get(term) ?? 0) + 1));
  }

  private norm(terms: ReadonlySet<string>): number {
    let sum = 0;
    for (const term of terms) sum += this.idf(term) ** 2;
    return Math.sqrt(sum);
  }
}

/** Markdown heading text of a body: lines starting with `#`, outside fenced code. */
export function headingLines(body: string): string[] {
  const out: string[] = [];
  let fenced = false;
  for (const line of body.split(/\r?\n/)) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    else if (!fenced && line.startsWith('#')) out.push(line.replace(/^#+\s*/, ''));
  }
  return out;
}
