import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';

// A child process logs through the shared standard-output destination and exits at once, as a server does on a fatal
// error; every line must reach the pipe whole, in order, with nothing interleaved.
async function linesOfChild(source: string): Promise<string[]> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', source], {
    cwd: new URL('..', import.meta.url).pathname,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  const [code] = (await once(child, 'exit')) as [number];
  expect(code).toBe(0);
  return out.split('\n').filter((line) => line.length > 0);
}

describe('stdoutDestination', () => {
  it('writes every line of a burst whole and in order, flushed when the process exits at once', async () => {
    const lines = await linesOfChild(`
      import pino from 'pino';
      import { stdoutDestination } from './lib/logger.ts';
      const log = pino({}, stdoutDestination());
      for (let i = 0; i < 20000; i++) log.info({ i, text: 'é'.repeat(i % 7) }, 'request completed');
      process.exit(0);
    `);
    expect(lines).toHaveLength(20000);
    lines.forEach((line, i) => {
      const parsed = JSON.parse(line) as { i: number; text: string; msg: string };
      expect(parsed).toMatchObject({ i, text: 'é'.repeat(i % 7), msg: 'request completed' });
    });
  });

  it('is one destination for every logger of the process, so their lines do not interleave mid-line', async () => {
    const lines = await linesOfChild(`
      import pino from 'pino';
      import { stdoutDestination } from './lib/logger.ts';
      const a = pino({}, stdoutDestination());
      const b = pino({}, stdoutDestination());
      for (let i = 0; i < 5000; i++) { a.info({ from: 'a', i }); b.info({ from: 'b', i }); }
      await new Promise((resolve) => a.flush(resolve));
    `);
    expect(lines).toHaveLength(10000);
    const parsed = lines.map((line) => JSON.parse(line) as { from: string; i: number });
    expect(parsed.filter((p) => p.from === 'a').map((p) => p.i)).toEqual([...Array(5000).keys()]);
    expect(parsed.filter((p) => p.from === 'b').map((p) => p.i)).toEqual([...Array(5000).keys()]);
  });
});
