import * as path from 'node:path';
import * as vscode from 'vscode';
import { SETTINGS } from '../../core/base/contributions';
import { DisposableStore } from '../../core/base/disposableStore';
import { Emitter } from '../../core/base/emitter';
import type { Event } from '../../core/base/emitter';
import type { Logger } from '../../core/base/logger';
import { describeError } from '../../core/base/logger';
import { fileEmbeddingStore } from '../../core/skills/search/embeddingCache';
import type { EmbeddingStatus, NearestQueryOptions, SemanticHit, SemanticSource } from '../../core/skills/search/embeddingIndex';
import { EmbeddingIndex } from '../../core/skills/search/embeddingIndex';
import type { ModelSetup } from '../models/modelSetup';
import type { SkillService } from './skillService';

/** Next to the skill index snapshot in the extension's global storage. */
export const EMBEDDING_CACHE_FILE = 'skill-embeddings.bin';

/** How long skill changes settle before the embeddings follow them. */
const CHANGE_DELAY_MS = 300;

const NOT_STARTED: EmbeddingStatus = { state: 'off', reason: 'starts with the first chat message or Skills tab search', skills: 0, embedded: 0 };

/**
 * Skill embeddings for the window, from the configured OpenAI-compatible endpoint. Nothing happens
 * at activation: the first chat turn or Skills tab search resolves the model, loads the cache and
 * starts embedding in the background (that first use ranks by words). Follows the skill index's
 * changes, and starts again when the model or retrieval settings change.
 */
export class SkillEmbeddings implements SemanticSource, vscode.Disposable {
  private readonly store = new DisposableStore();
  private readonly statusEmitter = new Emitter<EmbeddingStatus>('skill embeddings status');
  /** Fires when `status` changes: the status page can show it. */
  readonly onDidChangeStatus: Event<EmbeddingStatus> = this.statusEmitter.event;
  private index: EmbeddingIndex | undefined;
  private starting: Promise<void> | undefined;
  private session: DisposableStore | undefined;
  private current: EmbeddingStatus = NOT_STARTED;
  /** Bumped by reconfigure, so a start still resolving the model for old settings is dropped. */
  private generation = 0;

  constructor(
    private readonly skills: SkillService,
    private readonly models: ModelSetup,
    private readonly storageDir: string,
    private readonly logger: Logger,
  ) {
    this.store.add(this.statusEmitter);
    this.store.add(
      vscode.workspace.onDidChangeConfiguration((event) => {
        const affects = (key: string) => event.affectsConfiguration(`${SETTINGS.section}.${key}`);
        if (affects('retrieval') || affects(SETTINGS.modelBaseUrl)) this.reconfigure();
      }),
    );
    // A start still awaiting its key or model must not build a session after this.
    this.store.addCallback(() => {
      this.generation++;
      this.stop();
    });
  }

  /** `off` (switched off, no endpoint or embedding model, or not used yet), `indexing`, `ready` or `unavailable`, with the reason. */
  get status(): EmbeddingStatus {
    return this.index?.status ?? this.current;
  }

  async nearest(message: string, options?: NearestQueryOptions): Promise<readonly SemanticHit[] | undefined> {
    if (this.store.isDisposed) return undefined;
    if (!this.enabled()) {
      this.setStatus({ state: 'off', reason: `switched off by ${SETTINGS.section}.${SETTINGS.embeddings}`, skills: 0, embedded: 0 });
      return undefined;
    }
    const index = this.index;
    if (!index) {
      this.starting ??= this.start(this.generation);
      return undefined;
    }
    return index.nearest(message, options);
  }

  /** Settings changed: forget the index (its cache file stays) and start again on the next use. */
  reconfigure(): void {
    this.generation++;
    this.stop();
    this.setStatus(NOT_STARTED);
  }

  dispose(): void {
    this.store.dispose();
  }

  private enabled(): boolean {
    return vscode.workspace.getConfiguration(SETTINGS.section).get<boolean>(SETTINGS.embeddings, true) !== false;
  }

  private stop(): void {
    this.session?.dispose();
    this.session = undefined;
    this.index = undefined;
    this.starting = undefined;
  }

  private async start(generation: number): Promise<void> {
    try {
      const { baseUrl } = this.models.settings();
      if (baseUrl === '') return this.off('no OpenAI-compatible endpoint is configured (Skillwright: Configure Model)');
      const apiKey = await this.models.apiKey(baseUrl);
      // The provider module (and the openai package) loads on first use, never at activation.
      const { OpenAiEmbeddingClient, resolveEmbeddingModel } = await import('../../providers/embeddingClient');
      const configured = vscode.workspace.getConfiguration(SETTINGS.section).get<string>(SETTINGS.embeddingModel, '');
      const endpoint = { baseUrl, ...(apiKey ? { apiKey } : {}), logger: this.logger };
      const resolved = await resolveEmbeddingModel(endpoint, configured);
      if (generation !== this.generation) return;
      if (resolved.model === undefined) return this.off(resolved.reason);
      await this.skills.ready;
      if (generation !== this.generation) return;
      const session = new DisposableStore(this.logger);
      const index = session.add(
        new EmbeddingIndex({
          embedder: new OpenAiEmbeddingClient({ ...endpoint, model: resolved.model }),
          // The endpoint is part of the identity: the same model name on another server may embed differently.
          model: `${resolved.model} @ ${baseUrl}`,
          store: fileEmbeddingStore(this.skills.fs, path.join(this.storageDir, EMBEDDING_CACHE_FILE)),
          logger: this.logger,
        }),
      );
      session.add(index.onDidChangeStatus((status) => this.statusEmitter.fire(status)));
      // A burst of changes (a folder of skills moved in) becomes one update, off the change's own path.
      let timer: ReturnType<typeof setTimeout> | undefined;
      session.addCallback(() => clearTimeout(timer));
      session.add(
        this.skills.onDidChange(() => {
          clearTimeout(timer);
          timer = setTimeout(() => index.update(this.skills.skillIndex.active()), CHANGE_DELAY_MS);
        }),
      );
      this.session = session;
      this.index = index;
      this.logger.info(`Skill search by meaning: embedding skills with ${resolved.model}${resolved.source === 'listed' ? ' (the first embedding model the endpoint lists)' : ''}.`);
      index.update(this.skills.skillIndex.active());
      this.statusEmitter.fire(index.status);
    } catch (error) {
      if (generation === this.generation) this.off(`it could not start (${describeError(error)})`);
    }
  }

  private off(reason: string): void {
    this.logger.info(`Skill search by meaning is off: ${reason}. Skills are ranked by words only.`);
    this.setStatus({ state: 'off', reason, skills: 0, embedded: 0 });
  }

  private setStatus(status: EmbeddingStatus): void {
    if (status.state === this.current.state && status.reason === this.current.reason) return;
    this.current = status;
    this.statusEmitter.fire(status);
  }
}
