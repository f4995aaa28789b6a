/** Field schemas both webview protocols (panel and preview) are built from. */
import * as z from 'zod/mini';

export const str = z.string();
export const count = z.int().check(z.nonnegative());
export const id = z.string().check(z.minLength(1), z.maxLength(200));
/** Text typed by a person or produced by a model; bounded so a runaway message cannot hang a side. */
export const text = z.string().check(z.maxLength(2_000_000));
