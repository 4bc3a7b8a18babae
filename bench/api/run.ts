import autocannon from 'autocannon';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import { createInterface } from 'node:readline';

// Authenticated GET /api/assistants/{id} against a bare Fastify route that returns the same JSON, each server in its
// own process, measured alternately in one run with autocannon on loopback. Prints requests/s and p99 of both and
// their ratio. BENCH_SECONDS (default 10) per round, BENCH_ROUNDS (default 2) rounds, BENCH_CONNECTIONS (default 100).

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const rounds = Number(process.env.BENCH_ROUNDS ?? 2);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 100);

// On a machine of two cores or more, the client (this process) runs on core 0 and the server measured on core 1. Left
// to the scheduler, the two shared both cores differently from one run to the next, and the same build measured 21,600
// and 27,200 requests/s in consecutive runs; pinned, runs agree within a few per cent. BENCH_PIN=0 leaves them free.
const pinned = process.env.BENCH_PIN !== '0' && os.availableParallelism() >= 2 && spawnSync('taskset', ['-V']).status === 0;
if (pinned) spawnSync('taskset', ['-a', '-cp', '0', String(process.pid)], { stdio: 'ignore' });

async function startServer(args: string[]): Promise<{ child: ChildProcess; info: Record<string, any> }> {
  const command = [process.execPath, '--import', 'tsx', new URL('./servers.ts', import.meta.url).pathname, ...args];
  const child = spawn(pinned ? 'taskset' : command[0]!, pinned ? ['-c', '1', ...command] : command.slice(1), {
    // The server's request logs go to /dev/null, written as in production but read by nobody: were they piped here, this
    // process (autocannon's) would read every line of the API's rounds and none of the bare route's. The ready line
    // comes on a pipe of its own (fd 3).
    stdio: ['ignore', 'ignore', 'inherit', 'pipe'],
  });
  const line = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdio[3] as NodeJS.ReadableStream });
    lines.once('line', (l) => {
      lines.close();
      resolve(l);
    });
    child.once('exit', (code) => reject(new Error(`server exited (${code})`)));
  });
  return { child, info: JSON.parse(line) };
}

async function measure(url: string, headers: Record<string, string>) {
  const result = await autocannon({ url, headers, connections, duration: seconds, pipelining: 1 });
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors ${JSON.stringify(result.statusCodeStats)}`);
  return { rps: result.requests.average, p99: result.latency.p99 };
}

const api = await startServer(['api']);
const bare = await startServer(['bare', api.info.body]);
try {
  const path = `/api/assistants/${api.info.id}`;
  const apiResponse = await fetch(`${api.info.url}${path}`, { headers: { authorization: `Bearer ${api.info.key}` } });
  const bareResponse = await fetch(`${bare.info.url}${path}`);
  const [apiBody, bareBody] = [await apiResponse.text(), await bareResponse.text()];
  if (JSON.stringify(JSON.parse(apiBody)) !== JSON.stringify(JSON.parse(bareBody))) throw new Error('the two servers answer different JSON');
  console.log(
    `body ${apiBody.length} bytes, ${connections} connections, ${rounds} x ${seconds} s per server, alternating${pinned ? ', client on core 0, server on core 1' : ''}`,
  );
  // Warm both (JIT, connection pools, key cache) before measuring.
  await measure(`${bare.info.url}${path}`, {});
  await measure(`${api.info.url}${path}`, { authorization: `Bearer ${api.info.key}` });
  const results = { api: [] as { rps: number; p99: number }[], bare: [] as { rps: number; p99: number }[] };
  for (let round = 0; round < rounds; round++) {
    results.bare.push(await measure(`${bare.info.url}${path}`, {}));
    results.api.push(await measure(`${api.info.url}${path}`, { authorization: `Bearer ${api.info.key}` }));
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const apiRps = mean(results.api.map((r) => r.rps));
  const bareRps = mean(results.bare.map((r) => r.rps));
  console.log(`bare fastify route     ${bareRps.toFixed(0).padStart(7)} req/s   p99 ${mean(results.bare.map((r) => r.p99)).toFixed(1)} ms`);
  console.log(`GET /api/assistants/id ${apiRps.toFixed(0).padStart(7)} req/s   p99 ${mean(results.api.map((r) => r.p99)).toFixed(1)} ms`);
  console.log(`ratio (api / bare)     ${(apiRps / bareRps).toFixed(2)}   (target >= 0.9)`);
} finally {
  api.child.kill('SIGTERM');
  bare.child.kill('SIGTERM');
}
