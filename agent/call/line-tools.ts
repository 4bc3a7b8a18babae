import { llm, log, type tts, voice } from '@livekit/agents';
import { withTimeout } from '../../lib/async.js';
import { DTMF_SEQUENCE } from '../../media/dtmf.js';
import type { CallTool } from '../../modules/tools/index.js';
import type { CallTransferReport } from '../../modules/calls/index.js';
import type { CallEnding, Ending } from './ending.js';
import { LineError, WEB_LINE, type BriefingVoice, type CallLine, type ConsultOutcome } from './line.js';
import { listen } from './session-events.js';
import { startHold } from './hold-audio.js';
import { writeBriefing } from './briefing.js';
import { speak } from './speak.js';

// The built-in tools, which act on the call itself rather than on the organisation's systems: end the call, transfer
// the caller, press keys. Each acts through the call's line (line.ts), which says what its transport can do; what it
// cannot do, or a refused transfer, reaches the model as a failure it can tell the caller about, and the call goes on.
// docs/tools.md, "Built-in tools".

/** The end reason of a call the assistant ended with `end_call`. */
export const ASSISTANT_ENDED_CALL = 'assistant_ended_call';
/** The end reason of a call handed over by `transfer_call`. */
export const TRANSFERRED = 'transferred';

/** The reply in progress plays out before a built-in acts; a long answer is half a minute of speech, so past a minute it acts anyway. */
export const REPLY_PLAYOUT_TIMEOUT_MS = 60_000;
/** A goodbye asked of the model is one short sentence: a few seconds; past 15 s (FINAL_PLAYOUT_TIMEOUT_MS's bound) the call ends anyway. */
export const GOODBYE_TIMEOUT_MS = 15_000;
/** A handoff message is at most 300 characters, about 20 s of speech: past 30 s the transfer goes ahead. */
export const HANDOFF_TIMEOUT_MS = 30_000;
/**
 * How long after a line action succeeds the call waits for the framework to record the tool call before ending
 * anyway: it records it within milliseconds, so a second is only ever reached if the session is already closing.
 */
export const TOOL_RECORD_GRACE_MS = 1_000;
/** A transfer that has not been answered in 45 s is given up: LiveKit lets the destination ring 30 s, the carrier answers in seconds. */
export const TRANSFER_TIMEOUT_MS = 45_000;
/** 32 keys at LiveKit SIP's half second each, with room for pauses: 20 s. */
export const DTMF_TIMEOUT_MS = 20_000;

const DESCRIPTIONS: Record<'end_call' | 'transfer_call' | 'send_dtmf', string> = {
  end_call: 'Ends the call. Use it once the conversation is over: say goodbye in the same reply; the call ends when the caller has heard it.',
  transfer_call:
    'Transfers the caller to a person or another line. Use it when the caller asks for a person or for something you cannot do; tell them you are transferring them first.',
  send_dtmf: "Presses keys on the phone's keypad, to get through an automated phone menu: digits 0-9, * and #, and w to wait half a second.",
};

/** What the caller hears when a warm transfer comes back to them, unless the tool says otherwise. */
export const DEFAULT_DECLINE_MESSAGE = "I'm sorry, I couldn't reach anyone to take your call just now. I'm still here to help.";
export const WARM_TRANSFER_UNAVAILABLE =
  'A transfer with a briefing cannot be made on this call. The caller is still on the line with you: tell them you cannot transfer them right now, and offer to help another way.';

const GOODBYE_INSTRUCTION = 'The call ends after your next reply: say a short goodbye to the caller now, and nothing else.';

export interface LineToolsOptions {
  /** What the call's transport can do to the line; a web call's by default. */
  line?: CallLine | undefined;
  ending: CallEnding;
  /** Fields that name the call in the log. */
  logFields?: Record<string, unknown>;
  /** Told each transfer's outcome as it is known (the `call.transfer` event); never awaited, never fails a transfer. */
  onTransfer?: ((report: CallTransferReport) => void) | undefined;
}

type Session = voice.AgentSession;

/** The built-in tools of one call, and what their actions mean for how it ends. */
export class CallLineTools {
  readonly line: CallLine;
  readonly #ending: CallEnding;
  readonly #logFields: Record<string, unknown>;
  readonly #onTransfer: ((report: CallTransferReport) => void) | undefined;
  /**
   * A transfer being asked for holds a hangup until it is known whether the line was handed over. A warm transfer's
   * consultation does not: the caller on hold who hangs up ends it, and the call.
   */
  #transfer: 'none' | 'requesting' | 'consulting' | 'done' = 'none';
  #heldHangup: (() => void) | undefined;
  #consultation: AbortController | undefined;

  constructor(options: LineToolsOptions) {
    this.line = options.line ?? WEB_LINE;
    this.#ending = options.ending;
    this.#logFields = options.logFields ?? {};
    this.#onTransfer = options.onTransfer;
  }

  /**
   * The transport's hangup signal as the call's ending should see it. A transfer makes the far side leave: LiveKit
   * removes the SIP participant, the carrier stops the media stream, sometimes before the transfer's own answer
   * arrives. A hangup during a transfer request or a warm transfer's consultation waits for its outcome; after a transfer
   * it is the transfer's doing.
   */
  hangupSignal(signal: AbortSignal | undefined): AbortSignal | undefined {
    if (!signal) return undefined;
    const seen = new AbortController();
    const pass = () => seen.abort(signal.reason);
    const onAbort = () => {
      this.#consultation?.abort();
      if (this.#transfer === 'requesting' || this.#transfer === 'consulting') this.#heldHangup = pass;
      else if (this.#transfer === 'none') pass();
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    return seen.signal;
  }

  /** The framework's tool for a built-in; undefined for a tool that is not one. */
  toolFor(tool: Pick<CallTool, 'name' | 'description' | 'type' | 'transfer'>): llm.FunctionTool<any, any, any> | undefined {
    if (tool.type === 'end_call') return this.#endCall(tool);
    if (tool.type === 'transfer_call') return this.#transferCall(tool);
    if (tool.type === 'send_dtmf') return this.#sendDtmf(tool);
    return undefined;
  }

  #endCall(tool: Pick<CallTool, 'name' | 'description'>) {
    return llm.tool({
      name: tool.name,
      description: tool.description || DESCRIPTIONS.end_call,
      parameters: { type: 'object', properties: {}, additionalProperties: false },
      execute: async (_args, { ctx, toolCallId }) => {
        const ending: Ending = { status: 'completed', reason: ASSISTANT_ENDED_CALL };
        // What the model says along with the call is the goodbye: it plays to its end first.
        const before = ctx.speechHandle.chatItems.length;
        await withTimeout(
          ctx.waitForPlayout().catch(() => {}),
          REPLY_PLAYOUT_TIMEOUT_MS,
        );
        const spoken = ctx.speechHandle.chatItems
          .slice(before)
          .some((item) => item.type === 'message' && item.role === 'assistant' && Boolean(item.textContent?.trim()));
        log().info({ ...this.#logFields, tool: tool.name, goodbyeSaid: spoken }, 'assistant ends the call');
        if (spoken) {
          this.#endOnceRecorded(ctx.session, toolCallId, ending);
          return 'The call has ended.';
        }
        // Nothing said yet: the model is asked for the goodbye, and the call ends once it has played.
        const end = () => this.#ending.end(ending);
        ctx.speechHandle.addDoneCallback(end);
        setTimeout(end, GOODBYE_TIMEOUT_MS).unref();
        return GOODBYE_INSTRUCTION;
      },
    });
  }

  #transferCall(tool: Pick<CallTool, 'name' | 'description' | 'transfer'>) {
    const config = tool.transfer;
    return llm.tool({
      name: tool.name,
      description: tool.description || DESCRIPTIONS.transfer_call,
      parameters: { type: 'object', properties: {}, additionalProperties: false },
      execute: async (_args, { ctx, toolCallId }) => {
        if (!config) throw new llm.ToolError('This transfer has no destination set up. Tell the caller you cannot transfer them right now.');
        if (!this.line.canTransfer) throw new llm.ToolError(await refusalOf(this.line.transfer(config.destination)));
        if (config.mode === 'warm' && !this.line.canConsult) throw new llm.ToolError(WARM_TRANSFER_UNAVAILABLE);
        if (this.#transfer !== 'none') throw new llm.ToolError('A transfer is already under way.');
        // The reply in progress ("let me put you through") is heard first, whatever the mode.
        await withTimeout(
          ctx.waitForPlayout().catch(() => {}),
          REPLY_PLAYOUT_TIMEOUT_MS,
        );
        if (config.handoff_message?.trim()) {
          const handoff = speak(ctx.session, config.handoff_message, { allowInterruptions: false });
          await withTimeout(handoff.waitForPlayout(), HANDOFF_TIMEOUT_MS);
        }
        if (this.#ending.ended) throw new llm.ToolError('The call ended before the transfer.');
        if (config.mode === 'warm') return this.#warmTransfer(tool.name, config, ctx.session, toolCallId);
        this.#transfer = 'requesting';
        const fields = { ...this.#logFields, tool: tool.name, line: this.line.kind, mode: config.mode };
        try {
          // Once asked for, a transfer is not taken back when the caller speaks: its answer decides the call.
          const answered = await withTimeout(
            this.line.transfer(config.destination).then(() => true),
            TRANSFER_TIMEOUT_MS,
          );
          if (!answered)
            throw new LineError(
              'The transfer did not go through: the phone system did not answer in time. The caller is still on the line with you: tell them, and offer to help another way.',
              'timeout',
            );
        } catch (error) {
          this.#transfer = 'none';
          const held = this.#heldHangup;
          this.#heldHangup = undefined;
          // The caller left while the transfer was asked for: the call ends as their hangup.
          held?.();
          const refusal =
            error instanceof LineError
              ? error
              : new LineError(
                  'The transfer could not be made. The caller is still on the line with you: tell them, and offer to help another way.',
                  'transfer_failed',
                );
          log().warn({ ...fields, code: refusal.code, ...refusal.detail }, 'transfer refused');
          this.#onTransfer?.({ tool: tool.name, mode: 'cold', outcome: 'failed', destination: config.destination });
          throw new llm.ToolError(refusal.message);
        }
        this.#transfer = 'done';
        this.#heldHangup = undefined;
        log().info(fields, 'call transferred');
        this.#onTransfer?.({ tool: tool.name, mode: 'cold', outcome: 'transferred', destination: config.destination });
        log().debug({ ...fields, destination: config.destination }, 'transfer destination');
        this.#endOnceRecorded(ctx.session, toolCallId, { status: 'completed', reason: TRANSFERRED });
        return { transferred_to: config.destination, mode: config.mode };
      },
    });
  }

  /**
   * A transfer with a briefing: the caller holds (hold audio, their words not listened to) while the person at the
   * destination is called and briefed with a summary of the call so far; accepted, the caller is connected and the
   * call ends as `transferred`; otherwise the hold ends, the caller is told, and the conversation goes on.
   */
  async #warmTransfer(name: string, config: NonNullable<CallTool['transfer']>, session: Session, toolCallId: string) {
    const fields = { ...this.#logFields, tool: name, line: this.line.kind, mode: 'warm' };
    this.#transfer = 'consulting';
    const consultation = new AbortController();
    this.#consultation = consultation;
    // The call ending for any reason (its longest duration, a shutdown) gives the consultation up too.
    void this.#ending.settled.then(() => consultation.abort());
    const heldAt = Date.now();
    session.input.setAudioEnabled(false);
    const hold = startHold(session.output.audio, config.hold_audio);
    log().info(fields, 'caller on hold for a warm transfer');
    let outcome: ConsultOutcome;
    let briefing = '';
    try {
      briefing = await writeBriefing(session.llm instanceof llm.LLM ? session.llm : undefined, session.history, config.briefing_prompt);
      outcome = consultation.signal.aborted
        ? 'canceled'
        : await this.line.consult!({
            destination: config.destination,
            briefing,
            ringTimeoutS: config.ring_timeout_s,
            signal: consultation.signal,
            voice: voiceOf(session.tts),
          });
    } catch (error) {
      const refusal = error instanceof LineError ? error : undefined;
      log().warn({ ...fields, code: refusal?.code ?? 'consult_failed', ...refusal?.detail }, 'warm transfer: the person could not be called');
      outcome = 'failed';
    } finally {
      this.#consultation = undefined;
    }
    const heldMs = Date.now() - heldAt;
    log().info({ ...fields, outcome, heldMs }, 'warm transfer over');
    this.#onTransfer?.({ tool: name, mode: 'warm', outcome, destination: config.destination, heldMs });
    // A hangup while the person was called: the consultation's doing when they accepted (the carrier ends our stream
    // as it moves the caller), the caller's own otherwise, which ends the call once the hold has stopped.
    const held = this.#heldHangup;
    this.#heldHangup = undefined;
    if (outcome === 'accepted') {
      this.#transfer = 'done';
      await hold.stop();
      this.#endOnceRecorded(session, toolCallId, { status: 'completed', reason: TRANSFERRED });
      return { transferred_to: config.destination, mode: 'warm', outcome, held_ms: heldMs, briefing };
    }
    await hold.stop();
    this.#transfer = 'none';
    held?.();
    if (held || outcome === 'canceled' || this.#ending.ended) return { mode: 'warm', outcome, held_ms: heldMs, briefing };
    session.input.setAudioEnabled(true);
    const told = config.on_decline_message?.trim() || DEFAULT_DECLINE_MESSAGE;
    const back = speak(session, told, { allowInterruptions: true });
    await withTimeout(back.waitForPlayout(), HANDOFF_TIMEOUT_MS);
    return {
      mode: 'warm',
      outcome,
      held_ms: heldMs,
      briefing,
      caller_was_told: told,
      next: 'The caller is back with you and has been told the transfer did not happen: do not repeat it; carry on helping them.',
    };
  }

  #sendDtmf(tool: Pick<CallTool, 'name' | 'description'>) {
    return llm.tool({
      name: tool.name,
      description: tool.description || DESCRIPTIONS.send_dtmf,
      parameters: {
        type: 'object',
        properties: {
          digits: { type: 'string', pattern: DTMF_SEQUENCE.source, description: 'The keys to press in order: 0-9, *, #, A-D; w waits half a second' },
        },
        required: ['digits'],
        additionalProperties: false,
      },
      execute: async (args, { ctx, abortSignal }) => {
        const digits = String((args as { digits?: unknown } | undefined)?.digits ?? '');
        if (!this.line.canSendDtmf) throw new llm.ToolError(await refusalOf(this.line.sendDtmf(digits)));
        if (!DTMF_SEQUENCE.test(digits)) throw new llm.ToolError('digits must be 1 to 32 of 0-9, *, #, A-D and w (a half-second pause). Nothing was sent.');
        // Keys pressed over the assistant's own words would be lost in them: the reply in progress ends first.
        await withTimeout(
          ctx.waitForPlayout().catch(() => {}),
          REPLY_PLAYOUT_TIMEOUT_MS,
        );
        const sent = await withTimeout(
          this.line.sendDtmf(digits, { signal: abortSignal }).then(
            () => null,
            (error: unknown) => (error instanceof LineError ? error.message : 'The keys could not be sent.'),
          ),
          DTMF_TIMEOUT_MS,
        );
        if (sent === undefined) throw new llm.ToolError('The keys could not be sent in time.');
        if (sent !== null) throw new llm.ToolError(sent);
        log().info({ ...this.#logFields, tool: tool.name, line: this.line.kind, keys: digits.replace(/w/g, '').length }, 'keys sent');
        return { sent: digits };
      },
    });
  }

  /**
   * Ends the call once the framework has recorded this tool call (its FunctionToolsExecuted, which the transcript
   * reads), and closes the session at that moment so that no reply follows: there is nobody left to hear it.
   */
  #endOnceRecorded(session: Session, toolCallId: string, ending: Ending): void {
    let timer: NodeJS.Timeout | undefined;
    const finish = () => {
      stop();
      clearTimeout(timer);
      this.#ending.end(ending);
      session.shutdown({ drain: false });
    };
    const stop = listen(session, voice.AgentSessionEventTypes.FunctionToolsExecuted, (ev) => {
      if (ev.functionCalls.some((call) => call.callId === toolCallId)) finish();
    });
    timer = setTimeout(finish, TOOL_RECORD_GRACE_MS);
  }
}

/** The call's text-to-speech as a briefing's voice; none for a speech-to-speech model's call, which has no TTS. */
function voiceOf(model: tts.TTS | undefined): BriefingVoice | undefined {
  if (!model) return undefined;
  return async function* (text, signal) {
    const stream = model.synthesize(text, undefined, signal);
    try {
      for await (const audio of stream) {
        if (signal.aborted) return;
        yield audio.frame;
      }
    } finally {
      stream.close();
    }
  };
}

/** The sentence of a line's refusal. */
async function refusalOf(attempt: Promise<void>): Promise<string> {
  return attempt.then(
    () => 'The line did not do it.',
    (error: unknown) => (error instanceof LineError ? error.message : 'The line could not do it.'),
  );
}

/**
 * The line of a call: `line` as a transport gave it, or built from the call's row (a carrier's call id), or a web
 * call's when none is given.
 */
export function lineOf<Call>(call: Call, line: CallLine | ((call: Call) => CallLine | undefined) | undefined): CallLine {
  return (typeof line === 'function' ? line(call) : line) ?? WEB_LINE;
}
