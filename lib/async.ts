// Bounded waits. Every wait on something outside the process (a socket closing, audio playing out, a request in
// flight) is bounded, so that a hung peer cannot hang a call's end or a process's shutdown; these are the only ways
// the code bounds one, and each clears its timer, so a settled wait leaves nothing behind to hold the process open.

export { setTimeout as delay } from 'node:timers/promises';

/** Waits `ms`, or rejects with `signal`'s own reason once it aborts (what a caller that cancels expects to see). */
export async function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  signal?.throwIfAborted();
  await new Promise<void>((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Whether `promise` settled (fulfilled or rejected) within `ms`. Its result and error are not looked at. */
export async function settledWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), Math.max(0, ms));
  });
  try {
    return await Promise.race([
      promise.then(
        () => true as const,
        () => true as const,
      ),
      timedOut,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * `promise`'s value, or undefined if it has not settled within `ms`; its rejection within `ms` is passed on. The
 * promise is not cancelled: what it stands for goes on, and whoever calls this decides that it no longer matters.
 */
export async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), Math.max(0, ms));
  });
  try {
    return await Promise.race([promise, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
