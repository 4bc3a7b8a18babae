import { getJobContext, inference } from '@livekit/agents';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

// `turn_detector`: LiveKit's audio end-of-turn model (turn-detector-v1-mini), which ships inside
// @livekit/local-inference. Inside a LiveKit job the job's inference process runs it; a call driven directly through
// an audio pair (no job) gets an in-process runner instead. One inference of 1.2 s of audio takes ~60 ms.

interface Runner {
  initialize(): Promise<void>;
  run(data: unknown): Promise<unknown>;
}

let localExecutor: Promise<{ doInference(method: string, data: unknown): Promise<unknown> }> | undefined;

async function inProcessExecutor() {
  localExecutor ??= (async () => {
    // The runner is not re-exported by the package, so it is loaded from the package's own files.
    const require = createRequire(import.meta.url);
    const runnerPath = path.join(path.dirname(require.resolve('@livekit/agents')), 'inference/eot/runner.js');
    const { default: EotRunner } = (await import(pathToFileURL(runnerPath).href)) as { default: new () => Runner };
    const runner = new EotRunner();
    await runner.initialize();
    return { doInference: (_method: string, data: unknown) => runner.run(data) };
  })();
  return localExecutor;
}

export async function createAudioTurnDetector(): Promise<inference.TurnDetector> {
  let executor;
  try {
    executor = getJobContext().inferenceExecutor;
  } catch {
    executor = await inProcessExecutor();
  }
  return new inference.TurnDetector({ version: 'v1-mini', executor });
}
