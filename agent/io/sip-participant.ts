import type { EventEmitter } from 'node:events';

// What the agent's job reads from a SIP participant. LiveKit SIP keeps the call's progress in participant attributes:
// `sip.callStatus` goes dialing → ringing → active (answered) → hangup; `sip.phoneNumber` is the far end's number,
// `sip.trunkPhoneNumber` the organisation's number, `sip.callID` the carrier-side id.

export interface SipParticipantLike {
  identity: string;
  attributes: Record<string, string>;
}

export interface SipCallInfo {
  /** The organisation's number: the one called (inbound) or calling (outbound). */
  trunkNumber: string | null;
  /** The caller's (inbound) or callee's (outbound) number. */
  remoteNumber: string | null;
  providerCallSid: string | null;
}

export function sipCallInfo(participant: SipParticipantLike): SipCallInfo {
  const a = participant.attributes;
  return {
    trunkNumber: a['sip.trunkPhoneNumber'] || null,
    remoteNumber: a['sip.phoneNumber'] || null,
    providerCallSid: a['sip.callID'] || a['sip.callIDFull'] || null,
  };
}

export function isSipParticipant(participant: SipParticipantLike): boolean {
  return 'sip.callStatus' in participant.attributes || 'sip.phoneNumber' in participant.attributes;
}

/**
 * Resolves true once the SIP participant's call is answered (`active`), false when it hangs up or leaves first. The
 * agent must not greet a phone that is still ringing: the welcome would play to nobody.
 */
export function waitUntilAnswered(room: EventEmitter, participant: SipParticipantLike): Promise<boolean> {
  const status = () => participant.attributes['sip.callStatus'];
  if (status() === undefined || status() === 'active') return Promise.resolve(true);
  if (status() === 'hangup') return Promise.resolve(false);
  return new Promise((resolve) => {
    const done = (answered: boolean) => {
      room.off('participantAttributesChanged', onAttributes);
      room.off('participantDisconnected', onLeft);
      resolve(answered);
    };
    const onAttributes = (changed: Record<string, string>, p: SipParticipantLike) => {
      if (p.identity !== participant.identity) return;
      const next = changed['sip.callStatus'] ?? status();
      if (next === 'active') done(true);
      else if (next === 'hangup') done(false);
    };
    const onLeft = (p: SipParticipantLike) => {
      if (p.identity === participant.identity) done(false);
    };
    room.on('participantAttributesChanged', onAttributes);
    room.on('participantDisconnected', onLeft);
  });
}
