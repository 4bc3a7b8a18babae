import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { initializeLogger, voice, type llm } from '@livekit/agents';
import { createLlm } from '../../agent/providers/llm-providers.js';
import { callToolContext } from '../../agent/call/tools.js';
import { ToolRuns } from '../../agent/call/tool-runs.js';
import type { CallTool, HttpToolResult } from '../../modules/tools/index.js';
import { startFakeOpenAI } from '../../test/fakes/vendors/openai.js';

// The time a tool call adds to a turn beyond the tool's own latency. Sessions in the framework's text mode (no audio,
// so nothing but the turn's own work is timed), a new one every PAIRS_PER_SESSION pairs so the conversation stays as
// long as a call's (a session of hundreds of turns would time the growth of its history instead), an instant model on loopback, and an HTTP tool on loopback that
// answers after TOOL_DELAY_MS. Turns alternate between a question the model answers at once and one it answers by
// calling the tool first. Two figures per tool turn, on one clock (the servers run in this process):
//
//   added      = (model's tool call reaches us -> tool server gets the request)
//              + (tool server answers -> the model gets the result)
//   whole turn = (tool turn) - (the tool's request as the executor timed it) - (the plain turn before it)
//
// `added` is what the call's machinery costs between the model and the tool: the framework's tool step, our executor
// (templates, the target guard, the read cap), the tool-run tracking, and building the model's second request. The
// whole-turn figure adds the model's second answer itself (instant here, so its client-side cost).
// Usage: npm run bench:tools [-- turns]   (default 200 pairs; bounded to 1,000)

initializeLogger({ pretty: false, level: 'silent' });

const PAIRS = Math.min(Number(process.argv[2] ?? 200), 1_000);
const TOOL_DELAY_MS = 50;
const WARMUP_PAIRS = 20;
/** 20 turns: a few minutes of a call. */
const PAIRS_PER_SESSION = 10;

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

async function main(): Promise<void> {
  const toolTimes: Array<{ arrived: number; answered: number }> = [];
  const server = http.createServer((_req, res) => {
    const times = { arrived: performance.now(), answered: 0 };
    toolTimes.push(times);
    setTimeout(() => {
      times.answered = performance.now();
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"slots":["9:00","11:30"]}');
    }, TOOL_DELAY_MS);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const toolUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/slots?day={{args.day}}&account={{var.account}}`;

  /** When each model request arrived: the tool call is answered at once, so its arrival is when the call was asked for. */
  const modelTimes: number[] = [];
  const fakeModel = await startFakeOpenAI((body) => {
    modelTimes.push(performance.now());
    const messages = (body.messages ?? []) as Array<{ role: string; content: unknown }>;
    const last = messages[messages.length - 1]!;
    if (last.role === 'tool') return { text: 'Nine or eleven thirty.' };
    return String(last.content).includes('slots') ? { toolCalls: [{ name: 'find_slots', arguments: '{"day":"monday"}' }] } : { text: 'Hello there.' };
  });

  const tool: CallTool = {
    name: 'find_slots',
    description: 'Finds free slots',
    type: 'http',
    parameters: { type: 'object', properties: { day: { type: 'string' } } },
    http: { method: 'GET', url: toolUrl, headers: {}, query: {}, body: null, secretHeaders: { Authorization: 'Bearer bench' }, timeoutMs: 5_000 },
    transfer: null,
    messages: { on_start: null, on_slow: null, slow_after_ms: 2_000, on_failure: null },
  };
  const results = new Map<string, HttpToolResult>();
  const runs = new ToolRuns({ minInterruptionWords: 2, interruptions: true });
  const offered = callToolContext([tool], {
    values: { variables: { account: 'acme' }, contact: {} },
    allowPrivateTargets: true,
    onHttpResult: (id, r) => results.set(id, r),
    runs,
  });
  // The tool as offered, timed at the edges of its execute: where the framework's time ends and ours begins.
  const executeTimes: Array<{ entered: number; left: number }> = [];
  const tools = (offered as Array<llm.FunctionTool>).map((t) => ({
    ...t,
    execute: async (args: never, opts: never) => {
      const times = { entered: performance.now(), left: 0 };
      executeTimes.push(times);
      try {
        return await t.execute(args, opts);
      } finally {
        times.left = performance.now();
      }
    },
  })) as unknown as llm.ToolContextLike;
  const model = await createLlm({
    provider: 'custom',
    model: 'instant',
    apiKey: 'bench',
    baseUrl: fakeModel.url,
    sampling: { temperature: 0, topP: 1, maxTokens: 200, frequencyPenalty: 0, presencePenalty: 0, stopSequences: [] },
    customConfig: {},
  });
  let session!: voice.AgentSession;
  let detach = () => {};
  const openSession = async () => {
    detach();
    if (session) await session.close();
    session = new voice.AgentSession({ llm: model });
    await session.start({ agent: new voice.Agent({ instructions: 'You book appointments.', tools }) });
    detach = runs.attach(session);
  };

  const turn = async (text: string) => {
    const started = performance.now();
    await session.run({ userInput: text }).wait();
    return performance.now() - started;
  };
  const added: number[] = [];
  const whole: number[] = [];
  const stages = { framework_before: [] as number[], ours_before: [] as number[], ours_after: [] as number[], framework_after: [] as number[] };
  const plain: number[] = [];
  const withTool: number[] = [];
  for (let i = 0; i < WARMUP_PAIRS + PAIRS; i++) {
    if (i % PAIRS_PER_SESSION === 0) await openSession();
    const before = results.size;
    const plainMs = await turn('hello');
    const firstRequest = modelTimes.length;
    const toolMs = await turn('which slots are free on monday');
    const request = [...results.values()][before];
    if (!request || request.is_error) throw new Error(`the tool call failed: ${request?.error ?? 'not called'}`);
    if (i < WARMUP_PAIRS) continue;
    const times = toolTimes[toolTimes.length - 1]!;
    plain.push(plainMs);
    withTool.push(toolMs);
    const execute = executeTimes[executeTimes.length - 1]!;
    const asked = modelTimes[firstRequest]!;
    const answeredModel = modelTimes[firstRequest + 1]!;
    added.push(times.arrived - asked + (answeredModel - times.answered));
    stages.framework_before.push(execute.entered - asked);
    stages.ours_before.push(times.arrived - execute.entered);
    stages.ours_after.push(execute.left - times.answered);
    stages.framework_after.push(answeredModel - execute.left);
    whole.push(toolMs - request.duration_ms - plainMs);
  }
  await session.close();
  await fakeModel.close();
  server.close();

  const row = (name: string, values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    return `${name.padEnd(34)} p50 ${percentile(sorted, 50).toFixed(1).padStart(7)} ms   p95 ${percentile(sorted, 95).toFixed(1).padStart(7)} ms   max ${sorted[sorted.length - 1]!.toFixed(1).padStart(7)} ms`;
  };
  console.log(`tool turns: ${PAIRS} (after ${WARMUP_PAIRS} warm-up pairs), tool answers after ${TOOL_DELAY_MS} ms on loopback, instant model`);
  console.log(row('plain turn', plain));
  console.log(row('turn with a tool call', withTool));
  console.log(row('added by the tool call', added));
  console.log(row('whole turn beyond the tool', whole));
  console.log('where the added time goes:');
  console.log(row('  model asked -> execute (framework)', stages.framework_before));
  console.log(row('  execute -> request arrives (ours)', stages.ours_before));
  console.log(row('  answer -> execute returns (ours)', stages.ours_after));
  console.log(row('  execute -> model gets result (fw)', stages.framework_after));
  const p95 = percentile(
    [...added].sort((a, b) => a - b),
    95,
  );
  console.log(`target p95 < 20 ms: ${p95 < 20 ? 'met' : 'NOT met'} (${p95.toFixed(1)} ms)`);
}

await main();
process.exit(0);
