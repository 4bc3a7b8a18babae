// Where speech is in a recorded track, from its energy alone: the caller's sentences on the user track and the
// assistant's sounds on the assistant track, both on the call's clock (the recorder lays both tracks on it), so the
// gap between a sentence's end and the next assistant sound is what the caller heard.

/** Energy is read in 10 ms blocks: finer than any latency that matters here, coarse enough to ignore clicks. */
const BLOCK_MS = 10;

export interface Region {
  startMs: number;
  endMs: number;
}

function levelsDb(samples: Int16Array, sampleRate: number): Float64Array {
  const size = Math.round((sampleRate * BLOCK_MS) / 1000);
  const levels = new Float64Array(Math.floor(samples.length / size));
  for (let k = 0; k < levels.length; k++) {
    let sum = 0;
    for (let i = k * size, end = i + size; i < end; i++) sum += samples[i]! * samples[i]!;
    levels[k] = 10 * Math.log10(sum / size / (32768 * 32768) + 1e-12);
  }
  return levels;
}

/**
 * Sound regions of a track: blocks above `thresholdDb` (absolute, dBFS), joined across quiet stretches shorter than
 * `joinMs` (the pauses between a sentence's words), dropping regions shorter than `minMs` (a click, a breath).
 */
export function soundRegions(samples: Int16Array, sampleRate: number, opts: { thresholdDb?: number; joinMs?: number; minMs?: number } = {}): Region[] {
  const threshold = opts.thresholdDb ?? -45;
  const joinBlocks = Math.round((opts.joinMs ?? 350) / BLOCK_MS);
  const minBlocks = Math.round((opts.minMs ?? 120) / BLOCK_MS);
  const levels = levelsDb(samples, sampleRate);
  const regions: Array<{ start: number; end: number }> = [];
  for (let k = 0; k < levels.length; k++) {
    if (levels[k]! < threshold) continue;
    const last = regions.at(-1);
    if (last && k - last.end <= joinBlocks) last.end = k + 1;
    else regions.push({ start: k, end: k + 1 });
  }
  return regions.filter((r) => r.end - r.start >= minBlocks).map((r) => ({ startMs: r.start * BLOCK_MS, endMs: r.end * BLOCK_MS }));
}

export interface SentenceReply {
  /** The caller's sentence on the user track. */
  sentence: Region;
  /** End of the sentence to the start of the first assistant sound that began after it; null when none began before the caller spoke again. */
  e2eMs: number | null;
  /** The assistant started a sound while this sentence was being spoken (a reply or greeting talking over the caller). */
  talkedOver: boolean;
}

/**
 * Pairs each caller sentence with the assistant sound that answered it: the first assistant region that starts after
 * the sentence ends and before the caller's next sentence starts (a sound already under way when the caller stopped,
 * such as the rest of a greeting, is not an answer). A sentence with none was left unanswered.
 */
export function repliesTo(sentences: Region[], assistant: Region[], trackEndMs: number): SentenceReply[] {
  return sentences.map((sentence, i) => {
    const until = sentences[i + 1]?.startMs ?? trackEndMs;
    const reply = assistant.find((a) => a.startMs >= sentence.endMs && a.startMs < until);
    const talkedOver = assistant.some((a) => a.startMs > sentence.startMs && a.startMs < sentence.endMs);
    return { sentence, e2eMs: reply ? reply.startMs - sentence.endMs : null, talkedOver };
  });
}
