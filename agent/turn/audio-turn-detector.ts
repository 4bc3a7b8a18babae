import { getJobContext, inference } from '@livekit/agents';
import { eotProcess } from './eot-process.js';

// `turn_detector`: LiveKit's audio end-of-turn model (turn-detector-v1-mini), which ships inside
// @livekit/local-inference. Inside a LiveKit job the job's inference process runs it; a call driven directly through
// an audio pair (no job) uses a process of its own at lower priority (agent/turn/eot-process.ts), so the model's
// inferences never hold up the calls' audio.

export async function createAudioTurnDetector(): Promise<inference.TurnDetector> {
  let executor;
  try {
    executor = getJobContext().inferenceExecutor;
  } catch {
    executor = eotProcess();
  }
  return new inference.TurnDetector({ version: 'v1-mini', executor });
}
