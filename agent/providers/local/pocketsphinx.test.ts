import { describe, expect, it } from 'vitest';
import { FILLERS, grammarDictionary } from './pocketsphinx.js';

// The decoder reads its whole dictionary at every start: a grammar's decode is given only the words it can produce.

describe("the offline recogniser's grammar dictionary", () => {
  it("holds every pronunciation of the grammar's words and the fillers, and no other word", async () => {
    const text = await grammarDictionary(['Book an appointment!', 'read it']);
    const lines = text.trim().split('\n');
    const words = new Set(lines.map((line) => line.slice(0, line.indexOf(' ')).replace(/\(\d+\)$/, '')));
    expect([...words].sort()).toEqual(['an', 'appointment', 'book', 'it', 'read', ...FILLERS].sort());
    // "read" has two pronunciations (reed, red): both are kept, each under its own line.
    expect(lines.filter((line) => /^read(\(\d+\))? /.test(line)).length).toBeGreaterThanOrEqual(2);
  });

  it('leaves out a word the bundled dictionary cannot spell', async () => {
    const text = await grammarDictionary(['zqxjv please']);
    expect(text).toMatch(/^please /m);
    expect(text).not.toMatch(/zqxjv/);
  });
});
