import { Worker } from 'node:worker_threads';
import { DocumentParseError, type DocumentParseErrorCode } from './errors.js';

// The threads documents are converted in. A thread takes ~0.5 s of CPU to start and load its parser, a small page
// ~5 ms to convert: a crawl of 50 pages spent 25 CPU-seconds starting threads, one per page. So a thread that
// converted a document well is kept for the next one, and one that did not (past its time or memory bound, or dead) is
// ended: a hostile document still costs only its own thread. Conversions run one at a time per thread; a conversion
// that finds no idle thread starts one, as every conversion used to.

/** How long an idle thread is kept for the next document: the pages of one crawl, the files of one upload. */
export const IDLE_THREAD_MS = 10_000;
/** Idle threads kept at most; more, ended at once (a burst of concurrent conversions does not leave its threads). */
const MAX_IDLE_THREADS = 2;
/** A thread is retired after this many conversions, or holding more than this after one: parsers' caches are not kept. */
const MAX_CONVERSIONS_PER_THREAD = 100;
const MAX_RETAINED_MB = 128;
/** How often the memory of a thread under conversion is read. */
const MEMORY_CHECK_MS = 50;

const WORKER_URL = new URL('./worker-entry.mjs', import.meta.url);
const TOO_MUCH_MEMORY = 'This document needs more memory to convert than any real document would, so it was abandoned.';
const UNREADABLE = 'This document is damaged and its text cannot be read.';

type WorkerAnswer = { ok: true; markdown: string } | { ok: false; code: DocumentParseErrorCode; message: string | null };

export interface ConversionLimits {
  timeoutMs: number;
  /** The thread's heap. */
  heapMb: number;
  /** Everything the thread holds while converting: its heap and the buffers outside it. */
  memoryLimitMb: number;
}

interface Job {
  resolve(markdown: string): void;
  reject(error: DocumentParseError): void;
}

/** Node 24's Worker#getHeapStatistics (the installed type declarations predate it): the thread's heap and its external memory. */
type HeapStatistics = { used_heap_size: number; external_memory?: number };
const heapOf = (worker: Worker) => (worker as unknown as { getHeapStatistics(): Promise<HeapStatistics> }).getHeapStatistics();
const heldMb = (heap: HeapStatistics) => (heap.used_heap_size + (heap.external_memory ?? 0)) / (1024 * 1024);

class ConversionThread {
  readonly heapMb: number;
  readonly #worker: Worker;
  #job: Job | undefined;
  #conversions = 0;
  #ended = false;
  #idleTimer: NodeJS.Timeout | undefined;
  readonly #onEnded: (thread: ConversionThread) => void;

  constructor(heapMb: number, onEnded: (thread: ConversionThread) => void) {
    this.heapMb = heapMb;
    this.#onEnded = onEnded;
    this.#worker = new Worker(WORKER_URL, {
      // The parent's flags (a loader, an inspector) are not the conversion's; the entry registers its own loader.
      execArgv: [],
      resourceLimits: { maxOldGenerationSizeMb: heapMb },
      stdout: true,
      stderr: true,
    });
    this.#worker.on('message', (answer: WorkerAnswer) => {
      const job = this.#job;
      this.#job = undefined;
      if (!job) return;
      if (answer.ok) job.resolve(answer.markdown);
      else job.reject(new DocumentParseError(answer.code, answer.message ?? UNREADABLE));
    });
    this.#worker.on('error', (error: NodeJS.ErrnoException) => {
      this.#fail(
        error.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? new DocumentParseError('document_too_complex', TOO_MUCH_MEMORY)
          : new DocumentParseError('unreadable_document', UNREADABLE),
      );
    });
    this.#worker.on('exit', () => this.#fail(new DocumentParseError('unreadable_document', UNREADABLE)));
  }

  get reusable(): boolean {
    return !this.#ended && this.#conversions < MAX_CONVERSIONS_PER_THREAD;
  }

  /** Converts one document; the thread is ended if the conversion breaks a bound or the thread dies. */
  async convert(bytes: Buffer, mediaType: string, limits: ConversionLimits): Promise<string> {
    clearTimeout(this.#idleTimer);
    this.#worker.ref();
    this.#conversions++;
    const done = new Promise<string>((resolve, reject) => (this.#job = { resolve, reject }));
    const timer = setTimeout(
      () =>
        this.#fail(
          new DocumentParseError(
            'document_too_complex',
            `This document took longer than ${Math.ceil(limits.timeoutMs / 1000)} seconds to convert and was abandoned.`,
          ),
        ),
      limits.timeoutMs,
    );
    const memoryCheck = setInterval(() => {
      heapOf(this.#worker).then(
        (heap) => {
          if (heldMb(heap) > limits.memoryLimitMb) this.#fail(new DocumentParseError('document_too_complex', TOO_MUCH_MEMORY));
        },
        () => {},
      );
    }, MEMORY_CHECK_MS);
    this.#worker.postMessage({ bytes: new Uint8Array(bytes), mediaType });
    try {
      return await done;
    } finally {
      clearTimeout(timer);
      clearInterval(memoryCheck);
    }
  }

  /** After a conversion that went well: kept unless it holds too much, and not keeping the process alive while idle. */
  async keepIdle(idleMs: number, onIdleEnd: () => void): Promise<boolean> {
    const heap = await heapOf(this.#worker).catch(() => undefined);
    if (this.#ended || heap === undefined || heldMb(heap) > MAX_RETAINED_MB) return false;
    this.#worker.unref();
    this.#idleTimer = setTimeout(onIdleEnd, idleMs);
    this.#idleTimer.unref();
    return true;
  }

  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    clearTimeout(this.#idleTimer);
    void this.#worker.terminate();
    this.#onEnded(this);
  }

  #fail(error: DocumentParseError): void {
    const job = this.#job;
    this.#job = undefined;
    this.end();
    job?.reject(error);
  }
}

/** Threads for conversions, each reused for the next document while it converts well. */
export class ConversionThreads {
  readonly #idle: ConversionThread[] = [];
  readonly #idleMs: number;
  #started = 0;
  #live = 0;

  constructor(options: { idleMs?: number } = {}) {
    this.#idleMs = options.idleMs ?? IDLE_THREAD_MS;
  }

  /** The number of threads waiting for a document. */
  get idleCount(): number {
    return this.#idle.length;
  }

  /** The number of threads started so far. */
  get started(): number {
    return this.#started;
  }

  /** The number of threads not yet ended, converting or idle. */
  get live(): number {
    return this.#live;
  }

  async convert(bytes: Buffer, mediaType: string, limits: ConversionLimits): Promise<string> {
    const thread = this.#take(limits.heapMb) ?? this.#start(limits.heapMb);
    try {
      return await thread.convert(bytes, mediaType, limits);
    } finally {
      // Back among the idle before the caller goes on, so that its next document finds it. A document refused in words
      // leaves its thread as it was; one that broke a bound has ended it already.
      await this.#release(thread);
    }
  }

  /** Ends every idle thread. */
  close(): void {
    for (const thread of this.#idle.splice(0)) thread.end();
  }

  #start(heapMb: number): ConversionThread {
    this.#started++;
    this.#live++;
    return new ConversionThread(heapMb, (ended) => {
      this.#live--;
      this.#forget(ended);
    });
  }

  #take(heapMb: number): ConversionThread | undefined {
    const at = this.#idle.findIndex((thread) => thread.heapMb === heapMb && thread.reusable);
    return at < 0 ? undefined : this.#idle.splice(at, 1)[0];
  }

  async #release(thread: ConversionThread): Promise<void> {
    if (!thread.reusable || this.#idle.length >= MAX_IDLE_THREADS) return thread.end();
    if (!(await thread.keepIdle(this.#idleMs, () => thread.end())) || this.#idle.length >= MAX_IDLE_THREADS) return thread.end();
    this.#idle.push(thread);
  }

  #forget(thread: ConversionThread): void {
    const at = this.#idle.indexOf(thread);
    if (at >= 0) this.#idle.splice(at, 1);
  }
}
