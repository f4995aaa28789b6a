import type { EmbeddingStatus } from './embeddingIndex';

/** One line for the status page: how skills are ranked now, and why when meaning is not in it. */
export function embeddingStatusText(status: EmbeddingStatus): string {
  const model = status.model ? ` (${status.model})` : '';
  switch (status.state) {
    case 'ready':
      return `Words and meaning${model}: ${status.embedded.toLocaleString('en-US')} of ${status.skills.toLocaleString('en-US')} skills embedded.`;
    case 'indexing':
      return `Words only for now: embedding skills${model}, ${status.embedded.toLocaleString('en-US')} of ${status.skills.toLocaleString('en-US')} done.`;
    case 'unavailable':
      return `Words only: the embeddings endpoint failed${model}${status.reason ? `: ${status.reason}` : ''}. It is tried again later.`;
    case 'off':
      return `Words only${status.reason ? `: ${status.reason}` : '.'}`;
  }
}
