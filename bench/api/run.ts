import autocannon from 'autocannon';
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

// Authenticated GET /api/assistants/{id} against a bare Fastify route that returns the same JSON, each server in its
// own process, measured alternately in one run with autocannon on loopback. Prints requests/s and p99 of both and
// their ratio. BENCH_SECONDS (default 10) per round, BENCH_ROUNDS (default 2) rounds, BENCH_CONNECTIONS (default 100).

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const rounds = Number(process.env.BENCH_ROUNDS ?? 2);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 100);

async function startServer(args: string[]): Promise<{ child: ChildProcess; info: Record<string, any> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', new URL('./servers.ts', import.meta.url).pathname, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise<string>((resolve, reject) => {
    // The API's own request logs share stdout: the server's ready line is the one that names its URL.
    createInterface({ input: child.stdout! }).on('line', (l) => {
      if (l.startsWith('{"url"')) resolve(l);
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
  console.log(`body ${apiBody.length} bytes, ${connections} connections, ${rounds} x ${seconds} s per server, alternating`);
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
  console.log(`ratio (api / bare)     ${(apiRps / bareRps).toFixed(2)}   (target >= 0.5)`);
} finally {
  api.child.kill('SIGTERM');
  bare.child.kill('SIGTERM');
}
