/** What an approval card shows for a call that changes something, worked out by the tool itself. */

export interface ApprovalDiff {
  /** The path as the model sees it. */
  readonly path: string;
  /** Undefined for a new file. */
  readonly before: string | undefined;
  readonly after: string;
  readonly unified: string;
  readonly added: number;
  readonly removed: number;
}

/** What a tool would do, worked out before asking: the card's summary, and a diff for edits. */
export type ApprovalPreview =
  | { readonly ok: true; readonly summary: string; readonly diff?: ApprovalDiff }
  /** The call will be refused anyway (no match, bad path): no need to ask anyone. */
  | { readonly ok: false; readonly error: string };
