import { initializeLogger, log } from '@livekit/agents';

type Logger = ReturnType<typeof log>;

// The speech framework logs what callers and the assistant said at info level, in fields it marks as personal data
// (`lk.pii.new_transcript` on "starting preemptive generation", `lk.pii.message` on "playout completed ...",
// `lk.pii.arguments` on "Executing LLM tool call"). Transcripts, prompts and tool arguments are never logged at info
// here: at info and above those fields are replaced by a marker, and at debug they stay, for whoever debugs a call.

/** The framework's own test for a personal-data key: a `pii` segment in a dotted name (its telemetry/redaction.ts). */
const PII_KEY = /(^|\.)pii(\.|$)/i;
export const REDACTED = '[redacted: debug level only]';
const INFO = 30;

/** pino's public symbol for its hooks (`pino.symbols.hooksSym`), the same in the framework's own copy of pino. */
const HOOKS = Symbol.for('pino.hooks');

const guarded = new WeakSet<object>();

type LogMethod = (this: Logger, args: unknown[], method: (...args: unknown[]) => void, level: number) => void;

const withoutPii: LogMethod = function (args, method, level) {
  const fields = args[0];
  if (level >= INFO && fields !== null && typeof fields === 'object' && !(fields instanceof Error)) {
    const keys = Object.keys(fields).filter((k) => PII_KEY.test(k));
    if (keys.length > 0) {
      const copy: Record<string, unknown> = { ...(fields as Record<string, unknown>) };
      for (const k of keys) copy[k] = REDACTED;
      method.apply(this, [copy, ...args.slice(1)]);
      return;
    }
  }
  method.apply(this, args);
};

/**
 * Keeps personal-data fields out of the framework logger's info, warn and error lines. The framework builds its pino
 * logger itself, without a way to pass hooks, and rebuilds it in every job process; so this installs pino's
 * `logMethod` hook on the logger in place (through pino's public symbol for hooks) and regenerates its level methods.
 * Child loggers made afterwards inherit them. Safe to call more than once.
 */
export function keepPiiOutOfInfoLogs(logger: Logger = log()): void {
  if (guarded.has(logger)) return;
  const hooks = (logger as unknown as Record<symbol, { logMethod?: LogMethod }>)[HOOKS] ?? {};
  const previous = hooks.logMethod;
  const logMethod: LogMethod = previous
    ? function (args, method, level) {
        withoutPii.call(this, args, (...a: unknown[]) => previous.call(this, a, method, level), level);
      }
    : withoutPii;
  (logger as unknown as Record<symbol, unknown>)[HOOKS] = { ...hooks, logMethod };
  // Setting the level regenerates the level methods, which is when pino reads the hook.
  logger.level = logger.level;
  guarded.add(logger);
}

/** The agent's logger: the framework's, as JSON lines on stdout, with personal data kept to debug level. */
export function initializeAgentLogger(level: string): void {
  initializeLogger({ pretty: false, level });
  keepPiiOutOfInfoLogs();
}
