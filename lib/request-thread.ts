import { Worker } from 'node:worker_threads';

// Work that would stall the event loop (a synthesis, an embedding model) runs in a worker thread that answers requests
// by id. One mechanism for all of them: the thread starts on the first request, holds the process up only while a
// request waits (a thread kept for later must not keep a finished process alive), and should it fail or exit, every
// waiting request is rejected and the next request starts a new thread.

interface Waiting<A> {
  resolve(answer: A): void;
  reject(error: Error): void;
}

export interface Cancellation {
  signal: AbortSignal;
  /** What the thread is sent, for the request of this id, when `signal` aborts while it still waits. */
  message(id: number): object;
}

export class RequestThread<A extends { id: number }> {
  #worker: Worker | undefined;
  #next = 0;
  readonly #waiting = new Map<number, Waiting<A>>();

  /** `stopped` makes the error each waiting request gets should the thread fail or exit. */
  constructor(
    private readonly entry: URL,
    private readonly stopped: (why: string) => Error,
    /** What the thread reads as `workerData` (its role, where one entry serves several). */
    private readonly workerData?: unknown,
  ) {}

  #thread(): Worker {
    if (this.#worker) return this.#worker;
    const worker = new Worker(this.entry, this.workerData === undefined ? {} : { workerData: this.workerData });
    worker.unref();
    worker.on('message', (answer: A) => {
      const waiting = this.#waiting.get(answer.id);
      if (!waiting) return;
      this.#waiting.delete(answer.id);
      if (this.#waiting.size === 0) worker.unref();
      waiting.resolve(answer);
    });
    const fail = (why: string) => {
      if (this.#worker !== worker) return;
      this.#worker = undefined;
      for (const waiting of this.#waiting.values()) waiting.reject(this.stopped(why));
      this.#waiting.clear();
    };
    worker.on('error', (error) => fail(error.message));
    worker.on('exit', (code) => fail(`exit code ${code}`));
    this.#worker = worker;
    return worker;
  }

  /** Sends `message` with a fresh `id`; resolves with the thread's answer of that id, for the caller to read. */
  request(message: object, cancel?: Cancellation): Promise<A> {
    const worker = this.#thread();
    const id = this.#next++;
    // Busy: the thread keeps the process up until the answer is in, as any pending request would.
    worker.ref();
    return new Promise<A>((resolve, reject) => {
      this.#waiting.set(id, { resolve, reject });
      worker.postMessage({ ...message, id });
      cancel?.signal.addEventListener('abort', () => this.#worker === worker && this.#waiting.has(id) && worker.postMessage(cancel.message(id)), {
        once: true,
      });
    });
  }

  /** Stops the thread; requests still waiting are rejected, and the next request starts a new one. */
  async close(): Promise<void> {
    const worker = this.#worker;
    if (!worker) return;
    await worker.terminate();
  }
}
