import { describe, expect, it } from 'vitest';
import { answerFound, loadCorpus, loadQuestions } from './load.js';

describe('the retrieval-quality question set', () => {
  it('quotes every answer verbatim from its file, with unique ids, over every file', async () => {
    const [corpus, questions] = await Promise.all([loadCorpus(), loadQuestions()]);
    const files = new Map(corpus.map((c) => [c.file, c.markdown.replace(/\s+/g, ' ')]));
    for (const q of questions) expect(files.get(q.document), q.id).toContain(q.answer.replace(/\s+/g, ' '));
    expect(new Set(questions.map((q) => q.id)).size).toBe(questions.length);
    expect(questions.length).toBeGreaterThanOrEqual(60);
    expect(questions.filter((q) => q.kind === 'exact').length).toBeGreaterThanOrEqual(15);
    expect(new Set(questions.map((q) => q.document))).toEqual(new Set(files.keys()));
  });

  it('finds an answer whole, or by 60 % of its words in one run, and not by scattered words', () => {
    const answer = 'the waters of the Chesapeake and Ohio may be connected';
    expect(answerFound('They think the waters of the\n Chesapeake and Ohio may be connected together.', answer)).toBe(true);
    expect(answerFound('…opinion that the waters of the Chesapeake and Ohio', answer)).toBe(true);
    expect(answerFound('Ohio waters may be connected to the Chesapeake', answer)).toBe(false);
  });
});
