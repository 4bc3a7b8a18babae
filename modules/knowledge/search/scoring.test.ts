import { describe, expect, it } from 'vitest';
import { relevanceOf } from './calibration.js';
import { TopK } from './memory-vectors.js';

describe('calibrated relevance', () => {
  it('is 0 at the cosine of an unrelated passage, 1 at that of a typical answer, linear between, clamped', () => {
    expect(relevanceOf('text-embedding-3-small', 0.1)).toBe(0);
    expect(relevanceOf('text-embedding-3-small', 0.55)).toBeCloseTo(1, 10);
    expect(relevanceOf('text-embedding-3-small', 0.325)).toBeCloseTo(0.5, 10);
    expect(relevanceOf('text-embedding-3-small', 0.9)).toBe(1);
    expect(relevanceOf('text-embedding-3-small', -0.2)).toBe(0);
  });

  it('reads openai/<model> as the model, and gives a model it does not know middle-of-the-road anchors', () => {
    expect(relevanceOf('openai/text-embedding-3-small', 0.55)).toBeCloseTo(1, 10);
    expect(relevanceOf('ollama/nomic-embed-text', 0.4)).toBeCloseTo(0.5, 10);
  });
});

describe('the best k of a stream', () => {
  it('keeps the k highest scores in order, whatever order they come in', () => {
    const top = new TopK(3);
    [0.1, 0.9, 0.3, 0.95, 0.2, 0.5].forEach((score, id) => top.offer(id, score));
    expect(top.sorted()).toEqual([
      { chunkId: 3, score: 0.95 },
      { chunkId: 1, score: 0.9 },
      { chunkId: 5, score: 0.5 },
    ]);
  });
});
