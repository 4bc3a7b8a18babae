import { llm } from '@livekit/agents';

// The `summarize` history strategy: the turns that fall out of the reply's window are summarised by the call's own
// model in the background, after a reply, never while a caller waits. Until a summary is ready the reply goes with
// the window alone; a summary that fails is retried at the next turn, and the window still holds.

const INSTRUCTIONS =
  'Summarise this phone conversation between a caller and an assistant in at most 120 words, for the assistant to ' +
  'carry on from: who the caller is, what they asked and were told, values they gave (names, numbers, dates), and ' +
  'what is still open. Plain sentences, no preamble.';
/** 30 s: a summary is not urgent, but one stuck for longer is abandoned and tried again. */
const SUMMARY_TIMEOUT_MS = 30_000;

export class HistorySummary {
  readonly #model: llm.LLM;
  #summary = '';
  /** How many of the oldest turns the summary covers. */
  #covered = 0;
  #running: Promise<void> | undefined;

  constructor(model: llm.LLM) {
    this.#model = model;
  }

  get text(): string | undefined {
    return this.#summary || undefined;
  }

  /** The summary being made, if any (tests wait on it). */
  get pending(): Promise<void> | undefined {
    return this.#running;
  }

  /** Given the turns left out of a reply's prompt, oldest first: summarises them anew when more fell out. */
  update(dropped: llm.ChatItem[][]): void {
    if (this.#running || dropped.length <= this.#covered) return;
    const count = dropped.length;
    this.#running = this.#summarise(dropped.slice(this.#covered))
      .then((text) => {
        if (text.trim()) {
          this.#summary = text.trim();
          this.#covered = count;
        }
      })
      .catch(() => undefined)
      .finally(() => {
        this.#running = undefined;
      });
  }

  async #summarise(turns: llm.ChatItem[][]): Promise<string> {
    const lines = turns.flat().flatMap((item) => {
      if (item.type === 'message' && (item.role === 'user' || item.role === 'assistant'))
        return [`${item.role === 'user' ? 'Caller' : 'Assistant'}: ${item.textContent ?? ''}`];
      if (item.type === 'function_call_output') return [`(tool ${item.name} returned: ${item.output.slice(0, 500)})`];
      return [];
    });
    const chatCtx = new llm.ChatContext();
    chatCtx.addMessage({ role: 'system', content: INSTRUCTIONS });
    chatCtx.addMessage({ role: 'user', content: [...(this.#summary ? [`Summary so far: ${this.#summary}`] : []), ...lines].join('\n') });
    const stream = this.#model.chat({ chatCtx });
    let timedOut = false;
    // Closing the stream ends the loop below even when no chunk ever comes.
    const timer = setTimeout(() => {
      timedOut = true;
      stream.close();
    }, SUMMARY_TIMEOUT_MS);
    timer.unref();
    let text = '';
    try {
      for await (const chunk of stream) text += chunk.delta?.content ?? '';
    } finally {
      clearTimeout(timer);
    }
    if (timedOut) throw new Error('summary timed out');
    return text;
  }
}
