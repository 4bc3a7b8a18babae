import type { BaseLogger } from 'pino';

// What a background job writes to the log, with pino's signatures. The API passes its server's logger, a benchmark or a
// test a plain pino, so the code that logs never learns which process runs it; only the levels are asked for, not the
// rest of a logger (child loggers, level changes), so every one of them fits.

export type Logger = Pick<BaseLogger, 'info' | 'warn' | 'error'>;
