// A document's Markdown cut into chunks for retrieval. Every strategy first splits the Markdown into sections at its
// headings, so each chunk lies under one heading path (["Returns", "Refunds"]) that goes with it as context, and never
// spans two sections. Sizes are in CHARACTERS of the Markdown (UTF-16 code units, as JavaScript counts them);
// offsets are character offsets into the Markdown. docs/knowledge.md.

export const CHUNKING_STRATEGIES = ['recursive', 'markdown', 'sentence', 'fixed'] as const;
export type ChunkingStrategy = (typeof CHUNKING_STRATEGIES)[number];

export interface ChunkingOptions {
  strategy: ChunkingStrategy;
  /** Longest chunk, in characters. */
  chunkSize: number;
  /** Characters a chunk repeats from the end of the one before it (recursive, sentence, fixed). */
  chunkOverlap: number;
}

/** 1,000 characters (~250 tokens) with 200 of overlap: a few paragraphs, small enough to quote in a spoken answer. */
export const DEFAULT_CHUNKING: ChunkingOptions = { strategy: 'recursive', chunkSize: 1000, chunkOverlap: 200 };

/** How a chunk set is named on its chunks: `recursive:1000:200`. */
export function chunkingKey(options: ChunkingOptions): string {
  return `${options.strategy}:${options.chunkSize}:${options.chunkOverlap}`;
}

/** The options a key names, or undefined for a key this release does not know (its set is dropped at the next processing). */
export function chunkingOfKey(key: string): ChunkingOptions | undefined {
  const [strategy, size, overlap] = key.split(':');
  if (!CHUNKING_STRATEGIES.includes(strategy as ChunkingStrategy)) return undefined;
  const chunkSize = Number(size);
  const chunkOverlap = Number(overlap);
  if (!Number.isInteger(chunkSize) || !Number.isInteger(chunkOverlap) || chunkSize <= 0 || chunkOverlap < 0 || chunkOverlap >= chunkSize) return undefined;
  return { strategy: strategy as ChunkingStrategy, chunkSize, chunkOverlap };
}

export interface Chunk {
  content: string;
  headingPath: string[];
  /** Offsets into the Markdown: content === markdown.slice(start, end). */
  start: number;
  end: number;
  tokenCount: number;
}

/**
 * Tokens a text costs, estimated as one per 4 characters (rounded up): the ratio of English prose in the common BPE
 * vocabularies. No tokenizer of a particular model is at hand, and the estimate only sizes context budgets.
 */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

interface Span {
  start: number;
  end: number;
}

interface Section extends Span {
  headingPath: string[];
}

const HEADING = /^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/;
const FENCE = /^ {0,3}(```|~~~)/;

/** The Markdown's sections: text before the first heading, then one per heading, each with the path of headings above it. */
export function sectionsOf(markdown: string): Section[] {
  const sections: Section[] = [];
  const path: { level: number; text: string }[] = [];
  let sectionStart = 0;
  let currentPath: string[] = [];
  let fence: string | null = null;
  let offset = 0;
  for (const line of markdown.split('\n')) {
    const lineStart = offset;
    offset += line.length + 1;
    const fenced = FENCE.exec(line);
    if (fenced) {
      if (fence === null) fence = fenced[1]!;
      else if (fence === fenced[1]) fence = null;
      continue;
    }
    if (fence !== null) continue;
    const heading = HEADING.exec(line.replace(/\r$/, ''));
    if (!heading) continue;
    if (lineStart > sectionStart) sections.push({ start: sectionStart, end: lineStart, headingPath: currentPath });
    const level = heading[1]!.length;
    while (path.length > 0 && path[path.length - 1]!.level >= level) path.pop();
    path.push({ level, text: heading[2]!.trim() });
    currentPath = path.map((h) => h.text);
    sectionStart = lineStart;
  }
  if (markdown.length > sectionStart) sections.push({ start: sectionStart, end: markdown.length, headingPath: currentPath });
  return sections;
}

/** Where a level cuts a span: the end offset of each piece (the separator stays with the piece before it). */
type Cutter = (text: string, span: Span, size: number) => number[];

const cutAfter =
  (pattern: RegExp): Cutter =>
  (text, span) => {
    const cuts: number[] = [];
    const re = new RegExp(pattern.source, 'g');
    re.lastIndex = span.start;
    for (let m = re.exec(text); m !== null && m.index < span.end; m = re.exec(text)) {
      if (m[0].length === 0) {
        re.lastIndex++;
        continue;
      }
      const cut = Math.min(m.index + m[0].length, span.end);
      if (cut > span.start && cut < span.end) cuts.push(cut);
    }
    return cuts;
  };

const PARAGRAPHS = cutAfter(/\n[ \t]*\n\s*/);
const LINES = cutAfter(/\n/);
const SENTENCES = cutAfter(/[.!?\u2026]+["'\u201d\u2019)\]]*\s+/);
const WORDS = cutAfter(/\s+/);
const CHARACTERS: Cutter = (_text, span, size) => {
  const cuts: number[] = [];
  for (let at = span.start + size; at < span.end; at += size) cuts.push(at);
  return cuts;
};

function piecesAt(span: Span, cuts: number[]): Span[] {
  const pieces: Span[] = [];
  let start = span.start;
  for (const cut of cuts) {
    pieces.push({ start, end: cut });
    start = cut;
  }
  pieces.push({ start, end: span.end });
  return pieces;
}

/** Pieces no longer than `size`, cut at the first level of `levels` that cuts, then the next for what is still too long. */
function split(text: string, span: Span, size: number, levels: readonly Cutter[]): Span[] {
  if (span.end - span.start <= size) return [span];
  for (let i = 0; i < levels.length; i++) {
    const cuts = levels[i]!(text, span, size);
    if (cuts.length === 0) continue;
    return piecesAt(span, cuts).flatMap((piece) => split(text, piece, size, levels.slice(i)));
  }
  return piecesAt(span, CHARACTERS(text, span, size));
}

/** Consecutive pieces joined into chunks of at most `size`, each starting with up to `overlap` of the one before's end. */
function merge(pieces: Span[], size: number, overlap: number): Span[] {
  const chunks: Span[] = [];
  let current: Span[] = [];
  const length = () => (current.length === 0 ? 0 : current[current.length - 1]!.end - current[0]!.start);
  for (const piece of pieces) {
    const pieceLength = piece.end - piece.start;
    if (current.length > 0 && length() + pieceLength > size) {
      chunks.push({ start: current[0]!.start, end: current[current.length - 1]!.end });
      while (current.length > 0 && (length() > overlap || length() + pieceLength > size)) current.shift();
    }
    current.push(piece);
  }
  if (current.length > 0) chunks.push({ start: current[0]!.start, end: current[current.length - 1]!.end });
  return chunks;
}

function fixedWindows(section: Span, size: number, overlap: number): Span[] {
  const step = Math.max(1, size - overlap);
  const windows: Span[] = [];
  for (let start = section.start; start < section.end; start += step) {
    windows.push({ start, end: Math.min(start + size, section.end) });
    if (start + size >= section.end) break;
  }
  return windows;
}

function spansOf(text: string, section: Span, options: ChunkingOptions): Span[] {
  const { chunkSize: size, chunkOverlap } = options;
  // An overlap as long as the chunk would never move forward.
  const overlap = Math.min(chunkOverlap, Math.floor(size / 2));
  switch (options.strategy) {
    case 'recursive':
      return merge(split(text, section, size, [PARAGRAPHS, LINES, SENTENCES, WORDS]), size, overlap);
    case 'markdown':
      // One chunk per section; a section longer than a chunk is cut as `recursive` would, without overlap.
      return merge(split(text, section, size, [PARAGRAPHS, LINES, SENTENCES, WORDS]), size, 0);
    case 'sentence':
      return merge(
        split(text, section, size, [SENTENCES, LINES, WORDS]).flatMap((s) => piecesAt(s, SENTENCES(text, s, size))),
        size,
        overlap,
      );
    case 'fixed':
      return fixedWindows(section, size, overlap);
  }
}

/** The chunks of a document's Markdown, in order, none empty, none longer than `chunkSize` characters. */
export function chunkMarkdown(markdown: string, options: ChunkingOptions = DEFAULT_CHUNKING): Chunk[] {
  const chunks: Chunk[] = [];
  for (const section of sectionsOf(markdown)) {
    // A heading with nothing under it but the next heading says nothing by itself.
    const body = markdown.slice(section.start, section.end).replace(/^[^\n]*\n?/, section.headingPath.length > 0 ? '' : '$&');
    if (body.trim() === '') continue;
    for (const span of spansOf(markdown, section, options)) {
      const raw = markdown.slice(span.start, span.end);
      const lead = raw.length - raw.trimStart().length;
      const content = raw.trim();
      if (content === '') continue;
      const start = span.start + lead;
      chunks.push({ content, headingPath: section.headingPath, start, end: start + content.length, tokenCount: estimateTokens(content) });
    }
  }
  return chunks;
}
