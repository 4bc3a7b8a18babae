import { Future, getJobContext, inference } from '@livekit/agents';
import { eotProcess, type InferenceExecutor } from './eot-process.js';
import type { TurnDecision, TurnSignals } from './turn-signals.js';

// `turn_detector`, the default: one end-of-turn decision from every signal the call has, instead of the audio model
// alone. The session asks for a verdict once the caller has been silent 200 ms; the verdict picks the min or the max
// endpointing delay. Measured on our corpus (docs/benchmarks.md, Turn-taking), the audio model alone scored a third of
// finished sentences as unfinished (each then waits the max delay, 2.5 s) and cut a tenth of the pauses inside phone
// numbers and emails, while the words alone tell most of these cases apart at once. So the words decide first:
//
// - a value still being read out (a phone number short of its digits, an email without its domain, a spelled code, a
//   date without its year, in the caller's words or after the assistant asked for one), a trailing conjunction,
//   preposition, filler or comma: unfinished, at once;
// - a sentence closed by the recogniser's punctuation with nothing pending: finished, at once;
// - anything else ("it's john" from a recogniser without punctuation, or no words yet): the audio model decides from
//   the pitch and rhythm of the last 1.2 s, and words that arrive while it runs and settle the matter win. With no
//   words yet its answer waits for them (up to the longest delay): the turn is committed on words anyway, and a
//   recogniser that transcribes after the utterance ends would otherwise always arrive too late to be heard.
//
// So the model runs only when the words leave the turn open, which is what makes a core carry more calls. A
// decision is resolved the moment it is taken; the session then waits out the delay from the end of speech, and
// speech resuming in that time (the VAD's next window) cancels the commit, so no commit comes while the caller speaks.

type AudioStream = ReturnType<inference.TurnDetector['stream']>;
type Prediction = ReturnType<AudioStream['predict']>;
type PredictionEvent = Awaited<Prediction['await']>;

/** Probabilities given to the session for a verdict of the words: far on either side of any threshold. */
const WORDS_FINISHED = 1;
const WORDS_UNFINISHED = 0;
export class CombinedTurnDetector extends inference.TurnDetector {
  readonly #signals: TurnSignals;

  /** `executor` runs the audio model; by default the job's inference process or the calls' own model process. */
  constructor(signals: TurnSignals, executor: InferenceExecutor = modelExecutor()) {
    super({ version: 'v1-mini', executor });
    this.#signals = signals;
  }

  override stream(opts?: Parameters<inference.TurnDetector['stream']>[0]): AudioStream {
    const stream = super.stream(opts);
    // The session keeps the stream's audio flowing to the model's buffer as before; only how a verdict is reached
    // changes, so the stream stays the framework's own (the session checks its class) with these two calls taken over.
    const askModel = stream.predict.bind(stream);
    const cancelModel = stream.cancelInference.bind(stream);
    let pending: Future<PredictionEvent> | undefined;
    stream.predict = () => {
      pending = this.#decide(stream, askModel, cancelModel);
      return pending;
    };
    stream.cancelInference = (cancelOpts) => {
      // Speech resumed, or the turn was committed: whatever was pending is void, as it is for the framework's own.
      if (pending && !pending.done) pending.resolve(predictionEvent(WORDS_UNFINISHED));
      pending = undefined;
      cancelModel(cancelOpts);
    };
    return stream;
  }

  #decide(stream: AudioStream, askModel: () => Prediction, cancelModel: AudioStream['cancelInference']): Future<PredictionEvent> {
    const signals = this.#signals;
    const verdict = new Future<PredictionEvent>();
    const fromWords = (): boolean => {
      const reading = signals.reading();
      if (reading.verdict === 'open') return false;
      const finished = reading.verdict === 'complete';
      settle(finished ? WORDS_FINISHED : WORDS_UNFINISHED, signals.decisionFromWords(reading, finished, 'transcript'));
      return true;
    };
    let stopWatching = () => {};
    const settle = (probability: number, decision: TurnDecision, event?: PredictionEvent): void => {
      stopWatching();
      if (verdict.done) return;
      signals.decided(decision);
      verdict.resolve(event ?? predictionEvent(probability));
    };
    if (fromWords()) return verdict;

    const model = askModel();
    // A model that has not answered by the longest delay (its process starved on a loaded machine) decides nothing: the
    // turn is taken as unfinished, whose delay has then passed, so the session commits it now. Without this the verdict
    // would wait for the model, and the caller's sentence for their next one.
    const deadline = setTimeout(() => {
      if (verdict.done) return;
      cancelModel();
      settle(WORDS_UNFINISHED, signals.decisionFromWords(signals.reading(), false, 'none'));
    }, signals.delays.maxMs);
    deadline.unref?.();
    const stopDeadline = () => clearTimeout(deadline);
    // The model's answer while no words are in yet: a recogniser that transcribes an utterance once it has ended (the
    // offline one, ~300 ms after the VAD) delivers them after the model has answered, and they decide if they can.
    let heldAnswer: PredictionEvent | undefined;
    const fromModel = async (event: PredictionEvent): Promise<void> => {
      if (verdict.done) return;
      const threshold = (await stream.unlikelyThreshold(signals.language)) ?? null;
      const finished = threshold === null || event.endOfTurnProbability >= threshold;
      const reading = signals.reading();
      settle(
        event.endOfTurnProbability,
        {
          ...signals.decisionFromWords(reading, finished, 'audio_model'),
          audio_model_probability: round3(event.endOfTurnProbability),
          audio_model_threshold: threshold === null ? null : round3(threshold),
        },
        event,
      );
    };
    const stopListening = signals.onChange(() => {
      // Cancelled meanwhile (speech resumed): nothing left to decide.
      if (verdict.done) stopWatching();
      else if (fromWords()) cancelModel();
      else if (heldAnswer && signals.text.trim() !== '') void fromModel(heldAnswer);
    });
    stopWatching = () => {
      stopDeadline();
      stopListening();
    };
    void verdict.await.then(stopDeadline, stopDeadline);
    void model.await.then((event) => {
      if (signals.text.trim() === '') heldAnswer = event;
      else return fromModel(event);
    });
    return verdict;
  }
}

/**
 * Where the audio model runs: inside a LiveKit job, the job's inference process; a call driven directly through an
 * audio pair (no job) uses a process of its own at lower priority (agent/turn/eot-process.ts), so that the model's
 * inferences never hold up the calls' audio.
 */
function modelExecutor(): InferenceExecutor {
  try {
    return getJobContext().inferenceExecutor;
  } catch {
    return eotProcess();
  }
}

function predictionEvent(probability: number): PredictionEvent {
  return { type: 'eot_prediction', endOfTurnProbability: probability, lastSpeakingTimeMs: Date.now() };
}

const round3 = (value: number) => Math.round(value * 1000) / 1000;
