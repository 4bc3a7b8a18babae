import { afterAll, describe, expect, it } from 'vitest';
import { VectorThread } from './vector-thread.js';

// The vector thread searches the documents it holds exactly: the nearest chunks of all of them, by cosine.

const thread = new VectorThread();
afterAll(() => thread.close());

let seed = 7;
const random = () => {
  seed = (seed * 1_103_515_245 + 12_345) & 0x7fffffff;
  return seed / 0x7fffffff - 0.5;
};
function unitVectors(rows: number, dimensions: number): Float32Array {
  const out = new Float32Array(rows * dimensions);
  for (let r = 0; r < rows; r++) {
    let norm = 0;
    for (let i = 0; i < dimensions; i++) norm += (out[r * dimensions + i] = random()) ** 2;
    for (let i = 0; i < dimensions; i++) out[r * dimensions + i]! /= Math.sqrt(norm);
  }
  return out;
}

describe('the vector thread', () => {
  it('finds the exact nearest chunks over every document it is asked for, best first, with their cosine', async () => {
    const dimensions = 48;
    const a = unitVectors(3_000, dimensions);
    const b = unitVectors(2_000, dimensions);
    const idsA = Int32Array.from({ length: 3_000 }, (_, i) => 10_000 + i);
    const idsB = Int32Array.from({ length: 2_000 }, (_, i) => 50_000 + i);
    await thread.put('a', dimensions, idsA, a);
    await thread.put('b', dimensions, idsB, b);
    const query = unitVectors(1, dimensions);
    const all = [...idsA.keys()].map((row) => ({ id: idsA[row]!, v: a.subarray(row * dimensions, (row + 1) * dimensions) }));
    all.push(...[...idsB.keys()].map((row) => ({ id: idsB[row]!, v: b.subarray(row * dimensions, (row + 1) * dimensions) })));
    const exact = all
      .map(({ id, v }) => ({ id, dot: v.reduce((sum, x, i) => sum + x * query[i]!, 0) }))
      .sort((x, y) => y.dot - x.dot)
      .slice(0, 10);
    const { hits, missing } = await thread.search(['a', 'b'], query, 10);
    expect(missing).toEqual([]);
    expect(hits.map((h) => h.chunkId)).toEqual(exact.map((e) => e.id));
    for (const [i, hit] of hits.entries()) expect(hit.score).toBeCloseTo(exact[i]!.dot, 4);
  });

  it('says which documents it does not hold: dropped, or never given, or lost with a thread that was closed', async () => {
    const query = unitVectors(1, 48);
    thread.drop('a');
    expect((await thread.search(['a', 'b', 'never'], query, 3)).missing).toEqual(['a', 'never']);
    await thread.close();
    expect((await thread.search(['b'], query, 3)).missing).toEqual(['b']);
  });
});
