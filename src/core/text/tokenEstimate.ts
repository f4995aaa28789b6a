/**
 * A cheap, tokenizer-free estimate of how many model tokens a text costs:
 *
 *   tokens = ceil(asciiUnits / 4) + nonAsciiCodePoints
 *
 * Plain English costs about four characters per token with the common BPE tokenizers, hence the first
 * term. Outside ASCII that rule badly under-counts (CJK text, emoji and accented letters cost one or
 * more tokens per character), so every non-ASCII code point counts as a whole token. The estimate is
 * never below ceil(chars / 4) (a non-ASCII code point is at most two UTF-16 units). Its two counts
 * add up exactly across a concatenation, so the catalog tracks its budget part by part (`tokenUnits`)
 * and still knows the estimate of the joined text.
 */
export function estimateTokens(text: string): number {
  return tokensOfUnits(tokenUnits(text));
}

/** The additive parts of the estimate: counts of ASCII UTF-16 units and of other code points. */
export interface TokenUnits {
  ascii: number;
  other: number;
}

export function tokenUnits(text: string): TokenUnits {
  let ascii = 0;
  let other = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) {
      ascii++;
    } else {
      other++;
      if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
        const next = text.charCodeAt(i + 1);
        if (next >= 0xdc00 && next <= 0xdfff) i++;
      }
    }
  }
  return { ascii, other };
}

/** The estimate for text whose units were summed part by part (exact: units add up across a join). */
export function tokensOfUnits(units: TokenUnits): number {
  return Math.ceil(units.ascii / 4) + units.other;
}
