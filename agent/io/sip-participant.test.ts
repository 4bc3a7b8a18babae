import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { isSipParticipant, sipCallInfo, waitUntilAnswered } from './sip-participant.js';

describe('a SIP participant in the call room', () => {
  it('is answered when LiveKit SIP moves its call status from ringing to active', async () => {
    const room = new EventEmitter();
    const callee = { identity: 'callee', attributes: { 'sip.callStatus': 'ringing' } as Record<string, string> };
    const answered = waitUntilAnswered(room, callee);
    room.emit('participantAttributesChanged', { 'sip.callStatus': 'active' }, { identity: 'someone-else', attributes: {} });
    room.emit('participantAttributesChanged', { 'sip.callStatus': 'active' }, callee);
    await expect(answered).resolves.toBe(true);
    expect(room.listenerCount('participantAttributesChanged')).toBe(0);
  });

  it('is not answered when it hangs up or leaves while ringing', async () => {
    const room = new EventEmitter();
    const a = { identity: 'a', attributes: { 'sip.callStatus': 'dialing' } as Record<string, string> };
    const b = { identity: 'b', attributes: { 'sip.callStatus': 'ringing' } as Record<string, string> };
    const first = waitUntilAnswered(room, a);
    const second = waitUntilAnswered(room, b);
    room.emit('participantAttributesChanged', { 'sip.callStatus': 'hangup' }, a);
    room.emit('participantDisconnected', b);
    await expect(first).resolves.toBe(false);
    await expect(second).resolves.toBe(false);
  });

  it('needs no wait when it is a browser or already active', async () => {
    const room = new EventEmitter();
    await expect(waitUntilAnswered(room, { identity: 'web', attributes: {} })).resolves.toBe(true);
    await expect(waitUntilAnswered(room, { identity: 'sip', attributes: { 'sip.callStatus': 'active' } })).resolves.toBe(true);
  });

  it("reads the organisation's number, the far end's number and the carrier's call id", () => {
    const p = {
      identity: 'sip_+14155550123',
      attributes: { 'sip.callStatus': 'active', 'sip.phoneNumber': '+14155550123', 'sip.trunkPhoneNumber': '+14155550100', 'sip.callID': 'SCL_abc' },
    };
    expect(isSipParticipant(p)).toBe(true);
    expect(sipCallInfo(p)).toEqual({ trunkNumber: '+14155550100', remoteNumber: '+14155550123', providerCallSid: 'SCL_abc' });
    expect(isSipParticipant({ identity: 'web', attributes: {} })).toBe(false);
  });
});
