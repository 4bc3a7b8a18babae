/** Runs tasks with at most `concurrency` of them at once; the others wait their turn, first come first served. */
export function limitConcurrency(concurrency: number): <T>(task: () => Promise<T>) => Promise<T> {
  let active = 0;
  const waiting: (() => void)[] = [];
  return async <T>(task: () => Promise<T>): Promise<T> => {
    // A finishing task hands its slot straight to the next in line, so a newcomer can never slip in between.
    if (active >= concurrency) await new Promise<void>((turn) => waiting.push(turn));
    else active++;
    try {
      return await task();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else active--;
    }
  };
}
