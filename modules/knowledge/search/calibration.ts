// What `similarity_threshold` means for every model. Raw cosine similarity is not comparable across models: a small
// offline model scores a right answer ~0.5, OpenAI's text-embedding-3 models ~0.4–0.6, ada-002 ~0.8 with unrelated
// text at ~0.7. So the threshold applies to a calibrated relevance: 0 at the similarity a model typically gives an
// unrelated passage, 1 at what it typically gives the passage that answers the question, linear in between, clamped.
// The default 0.7 keeps a passage at least 70 % of the way from unrelated to a typical answer. The anchors of the
// offline model are measured on the labelled question set of bench/knowledge (docs/benchmarks.md); the vendors' come
// from their published behaviour; a model not listed gets middle-of-the-road anchors. docs/knowledge.md.

export interface Calibration {
  /** Typical cosine of a question and an unrelated passage. */
  unrelated: number;
  /** Typical cosine of a question and the passage that answers it. */
  answer: number;
}

const CALIBRATIONS: Record<string, Calibration> = {
  // Measured (bench/knowledge/quality.ts): medians 0.246 and 0.440 over 60 questions and 289 chunks.
  'local/use-lite': { unrelated: 0.25, answer: 0.44 },
  'text-embedding-3-small': { unrelated: 0.1, answer: 0.55 },
  'text-embedding-3-large': { unrelated: 0.08, answer: 0.55 },
  'text-embedding-ada-002': { unrelated: 0.7, answer: 0.85 },
};
const OTHER: Calibration = { unrelated: 0.2, answer: 0.6 };

export function calibrationOf(model: string): Calibration {
  const name = model.startsWith('openai/') ? model.slice('openai/'.length) : model;
  return Object.hasOwn(CALIBRATIONS, name) ? CALIBRATIONS[name]! : OTHER;
}

/** The relevance, 0 to 1, of a passage at cosine `similarity` to the question under `model`. */
export function relevanceOf(model: string, similarity: number): number {
  const { unrelated, answer } = calibrationOf(model);
  return Math.min(1, Math.max(0, (similarity - unrelated) / (answer - unrelated)));
}
