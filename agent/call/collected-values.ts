import { coerceValue, type CollectedValue, type CollectFieldIn } from '../../modules/playbooks/index.js';
import type { CollectedValuesRecord } from '../../modules/calls/index.js';

// Where a session's collected values accumulate: by playbook, each value checked and coerced to its declared type as
// the model saves it (modules/playbooks/collect.ts). At the end the call stores `record()` in `calls.collected_values`
// and `call.completed` carries it; a text test run reads the same record.

export interface SaveResult {
  /** The names saved, in the order sent. */
  saved: string[];
  /** Values refused, each with why: the model is told, so it can ask again. */
  refused: { name: string; reason: string }[];
}

interface Entry {
  fields: CollectFieldIn[];
  values: Record<string, CollectedValue>;
  /** The playbook was entered (a handoff taken) or a value of it saved: its missing values are reported. */
  touched: boolean;
}

export class CollectedValues {
  readonly #playbooks = new Map<string, Entry>();

  /** Declares what a playbook collects; a playbook that collects nothing is not recorded. */
  declare(playbook: string, fields: CollectFieldIn[]): void {
    if (fields.length > 0 && !this.#playbooks.has(playbook)) this.#playbooks.set(playbook, { fields, values: {}, touched: false });
  }

  /** The playbook was entered: what it still lacks is reported at the end, even if nothing was saved. */
  entered(playbook: string): void {
    const entry = this.#playbooks.get(playbook);
    if (entry) entry.touched = true;
  }

  /** Saves what the model sent: each declared value coerced, or refused with a reason; an undeclared name is refused. */
  save(playbook: string, args: Record<string, unknown>): SaveResult {
    const entry = this.#playbooks.get(playbook);
    const result: SaveResult = { saved: [], refused: [] };
    if (!entry) return result;
    entry.touched = true;
    for (const [name, raw] of Object.entries(args)) {
      // Models send null for a value they do not have yet: nothing to save, nothing to refuse.
      if (raw === null || raw === undefined) continue;
      const field = entry.fields.find((f) => f.name === name);
      if (!field) {
        result.refused.push({ name, reason: 'is not a value this playbook collects' });
        continue;
      }
      const coerced = coerceValue(field, raw);
      if (coerced.ok) {
        entry.values[name] = coerced.value;
        result.saved.push(name);
      } else {
        result.refused.push({ name, reason: coerced.reason });
      }
    }
    return result;
  }

  /** The required values of the playbook not saved yet. */
  missing(playbook: string): string[] {
    const entry = this.#playbooks.get(playbook);
    return entry ? entry.fields.filter((f) => f.required && !(f.name in entry.values)).map((f) => f.name) : [];
  }

  values(playbook: string): Record<string, CollectedValue> {
    return { ...this.#playbooks.get(playbook)?.values };
  }

  /** By playbook name, the values saved and the required ones missing; null when no playbook that collects was used. */
  record(): CollectedValuesRecord | null {
    const touched = [...this.#playbooks].filter(([, entry]) => entry.touched);
    if (touched.length === 0) return null;
    return Object.fromEntries(touched.map(([name, entry]) => [name, { values: { ...entry.values }, missing: this.missing(name) }]));
  }
}
