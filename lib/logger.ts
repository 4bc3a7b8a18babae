import { destination, type BaseLogger, type DestinationStream } from 'pino';

// What a background job writes to the log, with pino's signatures. The API passes its server's logger, a benchmark or a
// test a plain pino, so the code that logs never learns which process runs it; only the levels are asked for, not the
// rest of a logger (child loggers, level changes), so every one of them fits.

export type Logger = Pick<BaseLogger, 'info' | 'warn' | 'error'>;

let stdout: DestinationStream | undefined;

/**
 * Standard output for a server's logger, shared by every logger of the process. pino's default destination keeps lines
 * as text while an earlier write is in progress and measures the whole pending text again for each new line (a
 * Buffer.byteLength of a rope of up to 16 KB, flattened each time). Under bench:api's load that was a quarter of the
 * API's cost: 19,800 requests/s against 27,000 with this destination (docs/benchmarks.md). Here each line is encoded
 * once, and the destination (sonic-boom in buffer mode, which keeps each chunk's length) joins them. Still
 * asynchronous, and flushed at exit as pino's default is; writing each line at once (sync) measured 23,000-25,000.
 */
export function stdoutDestination(): DestinationStream {
  if (!stdout) {
    const boom = destination({ dest: 1, sync: false, contentMode: 'buffer' });
    // The destination's own methods stay bound to it: only a line's encoding happens here.
    stdout = {
      write: (line: string) => boom.write(Buffer.from(line) as unknown as string),
      flush: (cb?: (err?: Error) => void) => boom.flush(cb),
      flushSync: () => boom.flushSync(),
    } as DestinationStream;
  }
  return stdout;
}
