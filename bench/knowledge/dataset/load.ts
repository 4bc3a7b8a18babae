import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// The labelled question set of the retrieval-quality benchmark (README.md): seven State of the Union addresses (U.S.
// government works, in the public domain) and 60 questions, each with the passage that answers it quoted verbatim.

const here = path.dirname(fileURLToPath(import.meta.url));

export interface Question {
  id: string;
  question: string;
  /** The corpus file that answers it. */
  document: string;
  /** A verbatim quote of that file that answers it. */
  answer: string;
  /** `exact`: hinges on a name, number or rare word of the passage; `paraphrase`: asked in other words. */
  kind: 'exact' | 'paraphrase';
}

export async function loadCorpus(): Promise<Array<{ file: string; name: string; markdown: string }>> {
  const dir = path.join(here, 'corpus');
  const files = (await fs.readdir(dir)).filter((f) => f.endsWith('.md') && f !== 'SOURCE.md').sort();
  return Promise.all(
    files.map(async (file) => {
      const markdown = await fs.readFile(path.join(dir, file), 'utf8');
      return { file, name: /^# (.+)$/m.exec(markdown)?.[1] ?? file, markdown };
    }),
  );
}

export async function loadQuestions(): Promise<Question[]> {
  return JSON.parse(await fs.readFile(path.join(here, 'questions.json'), 'utf8')) as Question[];
}

const words = (text: string) => text.replace(/\s+/g, ' ').trim().split(' ');

/**
 * Whether a chunk holds the answer: the whole quote (whitespace collapsed), or, since chunks are cut at ~1,000
 * characters with overlap and a quote may straddle a cut, at least 60 % of the quote's words in one contiguous run.
 */
export function answerFound(chunkText: string, answer: string): boolean {
  const chunk = ` ${words(chunkText).join(' ')} `;
  const quote = words(answer);
  if (chunk.includes(` ${quote.join(' ')} `) || chunk.includes(quote.join(' '))) return true;
  const run = Math.ceil(quote.length * 0.6);
  for (let start = 0; start + run <= quote.length; start++) {
    if (chunk.includes(quote.slice(start, start + run).join(' '))) return true;
  }
  return false;
}
