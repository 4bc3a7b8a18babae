import { appendFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';

// What each test file costs, for `npm run test:cost`: the CPU its worker used while the file ran (the worker's own and
// that of the child processes it waited for: Chromium, `npm start`, a call's process) and its wall time, one JSON line
// per file in the file FILE_COST names. vitest reports only wall time, and on a 2-core machine the two tell different
// stories: a Chromium file waits on page loads, a knowledge file keeps a core busy.

/** CPU seconds of this process and its reaped children, from /proc (utime, stime, cutime, cstime in clock ticks). */
function cpuSeconds(): number {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) / 100;
}

let cpuAtStart = 0;
let startedAt = 0;
beforeAll(() => {
  cpuAtStart = cpuSeconds();
  startedAt = Date.now();
});
afterAll(() => {
  const file = path.relative(process.cwd(), expect.getState().testPath ?? 'unknown');
  const line = { file, cpu_s: +(cpuSeconds() - cpuAtStart).toFixed(2), wall_s: +((Date.now() - startedAt) / 1000).toFixed(2) };
  appendFileSync(process.env.FILE_COST ?? 'file-cost.jsonl', `${JSON.stringify(line)}\n`);
});
