import type { HostToPreview, SkillPreview } from '../../shared/previewProtocol';
import { parseHostPreviewMessage } from '../../shared/previewProtocol';

/**
 * What the preview keeps with setState. VS Code keeps it across a rebuild of a hidden webview and a
 * window reload, and after a reload hands it to the host's panel serializer, which reopens the
 * preview for `file` (src/host/preview/previewState.ts reads it). `preview` is the last model, shown
 * at once while the host builds a fresh one.
 */
export interface PreviewState {
  readonly file?: string;
  readonly preview?: SkillPreview;
}

/**
 * The state on load: the file of a saved state (this webview was shown before, and may have moved
 * on to another skill), else the one the host named in the page. A saved model is kept only if it
 * still passes the protocol check (an older version's shape is dropped) and is of that file.
 */
export function stateOnLoad(saved: unknown, pageFile: string | undefined): PreviewState {
  const record = typeof saved === 'object' && saved !== null ? (saved as { file?: unknown; preview?: unknown }) : {};
  const savedFile = typeof record.file === 'string' && record.file !== '' ? record.file : undefined;
  const file = savedFile ?? (pageFile === '' ? undefined : pageFile);
  const checked = record.preview !== undefined ? parseHostPreviewMessage({ type: 'preview/update', preview: record.preview }) : undefined;
  const preview = checked?.ok && checked.value.type === 'preview/update' && checked.value.preview.file === file ? checked.value.preview : undefined;
  return { ...(file ? { file } : {}), ...(preview ? { preview } : {}) };
}

/** The state after a message: a model names its file; after an error the file is still the one to come back to. */
export function stateAfter(state: PreviewState, message: HostToPreview): PreviewState {
  switch (message.type) {
    case 'preview/update':
      return { file: message.preview.file, preview: message.preview };
    case 'preview/error':
      return state.file ? { file: state.file } : {};
  }
}
