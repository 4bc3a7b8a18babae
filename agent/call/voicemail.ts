import { log, type voice } from '@livekit/agents';
import type { PrismaClient } from '../../prisma/client.js';
import { settledWithin } from '../../lib/async.js';
import { renderTemplate, type TemplateValues } from '../../modules/assistants/index.js';
import { type CallRow, onAnsweredBy, recordAnsweredBy } from '../../modules/calls/index.js';
import { watchVoiceForMachine, type CalleeAudio } from './machine-watch.js';
import { DEFAULT_DETECTOR, type MachineDetectorSettings } from '../../modules/campaigns/index.js';
import { FINAL_PLAYOUT_TIMEOUT_MS, type CallEnding } from './ending.js';
import { speak } from './speak.js';

// A campaign call answered by a machine. The verdict comes from the carrier's detector where the call asked for it
// (carrier connections: it arrives a few seconds in, asynchronously, so a person is never held up), else from our own
// detector on the call's voice activity, words and audio (machine-watch.ts; LiveKit SIP calls), whose verdict is stored
// on the call as the carrier's would be. Then the campaign's `voicemail.action` applies: `hang_up` ends the call at once;
// `leave_message` waits until the greeting has ended (the beep, or the silence after it), cuts off whatever the
// assistant was saying to the machine, speaks the message, and ends the call once it has played. Either way the call
// ends `completed` with `answered_by` naming the machine, which the campaign counts as voicemail.

export const VOICEMAIL_HUNG_UP = 'voicemail';
export const VOICEMAIL_MESSAGE_LEFT = 'voicemail_message_left';

interface VoicemailSettings {
  detect: boolean;
  action: 'hang_up' | 'leave_message';
  message: string | null;
}

const isMachine = (answeredBy: string) => answeredBy.startsWith('machine') || answeredBy === 'fax';

/** Acts on the call's machine verdict as its campaign says; answers a function that stops listening. */
export async function watchForMachine(
  prisma: PrismaClient,
  call: CallRow,
  session: voice.AgentSession,
  ending: CallEnding,
  values: TemplateValues,
  logFields: Record<string, unknown>,
  audio: CalleeAudio = {},
  detector: Partial<MachineDetectorSettings> = {},
): Promise<() => void> {
  if (call.campaignId === null) return () => {};
  const campaign = await prisma.campaign.findUnique({ where: { id: call.campaignId }, select: { voicemail: true } });
  const settings = campaign?.voicemail as VoicemailSettings | undefined;
  if (!settings?.detect) return () => {};
  let acted = false;
  const act = (answeredBy: string) => {
    if (acted || ending.ended || !isMachine(answeredBy)) return;
    const message = settings.action === 'leave_message' && settings.message ? renderTemplate(settings.message, values, 'speech').text : null;
    // A message waits for the greeting's end; `machine_start` only says a machine picked up.
    if (message && answeredBy === 'machine_start') return;
    acted = true;
    log().info({ ...logFields, answeredBy, action: message ? 'leave_message' : 'hang_up' }, 'answering machine');
    if (!message) return ending.end({ status: 'completed', reason: VOICEMAIL_HUNG_UP });
    session.interrupt();
    const spoken = speak(session, message, { allowInterruptions: false });
    void settledWithin(spoken.waitForPlayout(), FINAL_PLAYOUT_TIMEOUT_MS * 2).then(() => ending.end({ status: 'completed', reason: VOICEMAIL_MESSAGE_LEFT }));
  };
  if (!call.detectVoicemail) {
    // No carrier detector on this call: ours decides, and its verdict is stored for the campaign to count.
    const record = (answeredBy: string) => void recordAnsweredBy(prisma, call.id, answeredBy).catch(() => {});
    return watchVoiceForMachine(
      session,
      {
        onVerdict: (verdict) => {
          const answeredBy = verdict === 'machine' ? 'machine_start' : verdict;
          record(answeredBy);
          act(answeredBy);
        },
        onGreetingEnd: (by) => {
          const answeredBy = by === 'beep' ? 'machine_end_beep' : 'machine_end_silence';
          record(answeredBy);
          act(answeredBy);
        },
      },
      { ...DEFAULT_DETECTOR, ...detector },
      undefined,
      audio,
    );
  }
  const stop = onAnsweredBy(call.id, act);
  // A verdict that came before this call listened is on its row.
  const row = await prisma.call.findUnique({ where: { id: call.id }, select: { answeredBy: true } });
  if (row?.answeredBy) act(row.answeredBy);
  return stop;
}
