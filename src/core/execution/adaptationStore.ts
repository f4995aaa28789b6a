import type { Logger } from '../base/logger';
import { describeError, nullLogger } from '../base/logger';
import type { TextStore } from '../base/textStore';
import { isPlainObject } from '../skills/model/skillParser';
import type { TuningState } from './adaptation';
import { normalizeState } from './adaptation';
import type { AdaptationSpec } from './adaptationSpec';

export const ADAPTATION_STORE_VERSION = 1;

/**
 * The tuned values of every level-2 skill, in one JSON file in the extension's storage (never in
 * the repo). States are kept as read and made legal for the skill's spec on every `get`, so a skill
 * whose bounds shrank never yields an out-of-bounds value, and a skill whose spec is broken for a
 * while does not lose its history.
 */
export class AdaptationStore {
  private skills = new Map<string, unknown>();
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly store: TextStore,
    private readonly logger: Logger = nullLogger,
  ) {}

  async load(): Promise<void> {
    const skills = new Map<string, unknown>();
    try {
      const text = await this.store.read();
      if (text !== undefined && text.trim() !== '') {
        const data = JSON.parse(text) as unknown;
        if (!isPlainObject(data) || data['version'] !== ADAPTATION_STORE_VERSION || !isPlainObject(data['skills'])) {
          throw new Error(`expected {"version": ${ADAPTATION_STORE_VERSION}, "skills": {…}}`);
        }
        for (const [skill, state] of Object.entries(data['skills'])) {
          if (isPlainObject(state)) skills.set(skill, state);
          else this.logger.warn(`The tuned values of skill "${skill}" were unreadable; it starts from its defaults.`);
        }
      }
    } catch (error) {
      this.logger.warn(`Tuned skill values were unreadable and start afresh from the defaults: ${describeError(error)}`);
      skills.clear();
    }
    this.skills = skills;
  }

  /** The skill's state, made legal for its spec as it is now. */
  get(skill: string, spec: AdaptationSpec): TuningState {
    return normalizeState(spec, this.skills.get(skill));
  }

  /** Skills that have any stored state. */
  names(): string[] {
    return [...this.skills.keys()].sort();
  }

  /**
   * Changes one skill's state and writes the file. Updates run one at a time, so two concurrent
   * ones never lose each other's change; when the write fails the change is undone and the error
   * passed on, so what is shown is always what a restart will see.
   */
  update(skill: string, spec: AdaptationSpec, change: (state: TuningState) => TuningState): Promise<TuningState> {
    const run = async (): Promise<TuningState> => {
      const had = this.skills.has(skill);
      const previous = this.skills.get(skill);
      const next = normalizeState(spec, change(this.get(skill, spec)));
      this.skills.set(skill, next);
      try {
        await this.write();
      } catch (error) {
        if (had) this.skills.set(skill, previous);
        else this.skills.delete(skill);
        throw new Error(`Could not save the tuned values of "${skill}": ${describeError(error)}`, { cause: error });
      }
      return next;
    };
    const result = this.queue.then(run, run);
    this.queue = result.catch(() => undefined);
    return result;
  }

  /** Forgets a skill's tuning (the skill was deleted, or a person reset it). */
  remove(skill: string): Promise<void> {
    const run = async (): Promise<void> => {
      if (!this.skills.has(skill)) return;
      const previous = this.skills.get(skill);
      this.skills.delete(skill);
      try {
        await this.write();
      } catch (error) {
        this.skills.set(skill, previous);
        throw new Error(`Could not save after forgetting the tuned values of "${skill}": ${describeError(error)}`, { cause: error });
      }
    };
    const result = this.queue.then(run, run);
    this.queue = result.catch(() => undefined);
    return result;
  }

  private write(): Promise<void> {
    const skills = Object.fromEntries([...this.skills].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    return this.store.write(`${JSON.stringify({ version: ADAPTATION_STORE_VERSION, skills }, null, 1)}\n`);
  }
}
