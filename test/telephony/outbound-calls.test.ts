import { describe, expect } from 'vitest';
import { createApiContext } from '../helpers/api.js';
import { startFakeLiveKit } from '../fakes/livekit.js';
import { apiTest } from '../helpers/fixtures.js';
import { until } from '../helpers/until.js';

const it = apiTest
  .extend('livekit', { scope: 'file' }, async ({}, { onCleanup }) => {
    const livekit = await startFakeLiveKit();
    onCleanup(() => livekit.close());
    return livekit;
  })
  .extend('apiOptions', { scope: 'file' }, async ({ livekit }) => ({
    livekit: { url: livekit.url, apiKey: livekit.apiKey, apiSecret: livekit.apiSecret, agentName: 'voice-assistant' },
    diallerPollIntervalMs: 50,
  }))
  .extend('acme', { scope: 'file' }, async ({ api }) => api.tenant('Acme'))
  .extend(
    'callOf',
    { scope: 'file' },
    async ({ api }) =>
      (sid: string) =>
        api.db.prisma.call.findUniqueOrThrow({ where: { callSid: sid } }),
  )
  .extend(
    'eventsOf',
    { scope: 'file' },
    async ({ api }) =>
      async (sid: string) =>
        (await api.db.prisma.event.findMany({ orderBy: { createdAt: 'asc' } }))
          .filter((e) => (e.payload as { call_sid?: string }).call_sid === sid)
          .map((e) => e.type),
  );

let assistantId: number;
let connectionId: number;

it.beforeAll(async ({ api, acme }) => {
  assistantId = (await api.call(acme, 'POST', '/api/assistants', { name: 'Sales' })).body.id;
  const conn = await api.call(acme, 'POST', '/api/phone-connections', {
    name: 'Carrier',
    sip_address: 'sip.carrier.example:5060',
    sip_transport: 'tls',
    username: 'acme',
    password: 'trunk-password-123',
  });
  connectionId = conn.body.data.id;
  await api.call(acme, 'POST', '/api/phone-numbers', { number: '+14155550100', phone_connection_id: connectionId, assistant_id: assistantId });
});

describe('POST /api/telephony/calls/initiate', () => {
  it('answers with the queued call before dialling, then creates the room, the dispatch and the SIP participant', async ({ api, acme, livekit, callOf }) => {
    livekit.onDial('+14155550111', { answer: true, afterMs: 300 });
    const res = await api.call(acme, 'POST', '/api/telephony/calls/initiate', {
      to_phone_number: '+14155550111',
      welcome_message: 'Hi, this is Acme.',
      variables: { first_name: 'Ada' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: 'Call queued', call_sid: expect.stringMatching(/^CA[0-9a-f]{32}$/), provider_call_sid: null });
    const sid = res.body.call_sid as string;
    const queued = await callOf(sid);
    expect(queued).toMatchObject({
      direction: 'outbound',
      transport: 'sip',
      fromNumber: '+14155550100',
      toNumber: '+14155550111',
      assistantId,
      welcomeMessage: 'Hi, this is Acme.',
      variables: { first_name: 'Ada' },
    });

    const room = `call-${sid}`;
    await until(async () => (await callOf(sid)).status === 'ringing');
    const answered = await until(async () => {
      const c = await callOf(sid);
      return c.providerCallSid ? c : null;
    });
    expect(answered.livekitRoom).toBe(room);

    const createRoom = livekit.of('CreateRoom').find((c) => c.body.name === room)!;
    expect(JSON.parse(createRoom.body.metadata)).toEqual({ call_id: queued.id });
    const dispatch = livekit.of('CreateDispatch').find((c) => c.body.room === room)!;
    expect(dispatch.body).toMatchObject({ agentName: 'voice-assistant', metadata: JSON.stringify({ call_id: queued.id }) });
    const dial = livekit.of('CreateSIPParticipant').find((c) => c.body.roomName === room)!;
    expect(dial.body).toMatchObject({
      sipCallTo: '+14155550111',
      sipNumber: '+14155550100',
      participantIdentity: 'callee',
      waitUntilAnswered: true,
      ringingTimeout: '30s',
      trunk: { hostname: 'sip.carrier.example:5060', transport: 'SIP_TRANSPORT_TLS', authUsername: 'acme', authPassword: 'trunk-password-123' },
    });
    expect(dial.claims.sip?.call).toBe(true);
    // Room, then dispatch, then the dial: the agent is there before the callee can answer.
    expect(livekit.calls.indexOf(createRoom)).toBeLessThan(livekit.calls.indexOf(dispatch));
    expect(livekit.calls.indexOf(dispatch)).toBeLessThan(livekit.calls.indexOf(dial));
  });

  it('ends a call the callee rejects as busy, and one nobody answers as no_answer, each with call.completed', async ({
    api,
    acme,
    livekit,
    callOf,
    eventsOf,
  }) => {
    livekit.onDial('+14155550112', { sipStatus: 486, reason: 'Busy Here' });
    livekit.onDial('+14155550113', { sipStatus: 480, reason: 'Temporarily Unavailable' });
    const busy = (await api.call(acme, 'POST', '/api/telephony/calls/initiate', { to_phone_number: '+14155550112' })).body.call_sid as string;
    const absent = (await api.call(acme, 'POST', '/api/telephony/calls/initiate', { to_phone_number: '+14155550113' })).body.call_sid as string;
    await until(async () => (await callOf(busy)).status === 'busy');
    await until(async () => (await callOf(absent)).status === 'no_answer');
    expect(await callOf(busy)).toMatchObject({ endReason: 'busy', durationMs: 0 });
    expect(await eventsOf(busy)).toEqual(['call.completed']);
    expect(await eventsOf(absent)).toEqual(['call.completed']);
    // The agent waiting in the room is released with it.
    await until(async () => livekit.of('DeleteRoom').some((c) => c.body.room === `call-${busy}`));
  });

  it('fails the call with call.failed when LiveKit cannot be reached', async ({ api, acme, livekit, callOf, eventsOf }) => {
    livekit.down(true);
    try {
      const sid = (await api.call(acme, 'POST', '/api/telephony/calls/initiate', { to_phone_number: '+14155550114' })).body.call_sid as string;
      await until(async () => (await callOf(sid)).status === 'failed');
      expect(await callOf(sid)).toMatchObject({ endReason: 'dial_failed' });
      expect(await eventsOf(sid)).toEqual(['call.completed', 'call.failed']);
    } finally {
      livekit.down(false);
    }
  });

  it('returns the first call for a retried request with the same Idempotency-Key, and dials once', async ({ api, acme, livekit, callOf }) => {
    const send = () =>
      api.app.inject({
        method: 'POST',
        url: '/api/telephony/calls/initiate',
        headers: { authorization: `Bearer ${acme.key}`, 'idempotency-key': 'order-42' },
        payload: { to_phone_number: '+14155550115', variables: { order: '42' } },
      });
    const [a, b] = await Promise.all([send(), send()]);
    const c = await send();
    const sids = [a, b, c].map((r) => (r.json() as { call_sid: string }).call_sid);
    expect(new Set(sids).size).toBe(1);
    expect([a, b, c].map((r) => r.statusCode)).toEqual([200, 200, 200]);
    await until(async () => (await callOf(sids[0]!)).providerCallSid);
    expect(livekit.of('CreateSIPParticipant').filter((d) => d.body.sipCallTo === '+14155550115')).toHaveLength(1);

    const changed = await api.app.inject({
      method: 'POST',
      url: '/api/telephony/calls/initiate',
      headers: { authorization: `Bearer ${acme.key}`, 'idempotency-key': 'order-42' },
      payload: { to_phone_number: '+14155550199' },
    });
    expect(changed.statusCode).toBe(422);
    expect(changed.json()).toEqual({ detail: [{ loc: ['header', 'idempotency-key'], msg: expect.any(String), type: 'idempotency_key_reused' }] });
  });

  it('refuses a number that is not E.164, and a from number the organisation does not manage, creating nothing', async ({ api, acme }) => {
    const before = await api.db.prisma.call.count();
    const bad = await api.call(acme, 'POST', '/api/telephony/calls/initiate', { to_phone_number: '4155550116' });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['body', 'to_phone_number']);
    const foreign = await api.call(acme, 'POST', '/api/telephony/calls/initiate', { to_phone_number: '+14155550116', from_phone_number: '+14155550999' });
    expect(foreign.status).toBe(422);
    expect(foreign.body.detail).toEqual([
      { loc: ['body', 'from_phone_number'], msg: "Value is not one of the organisation's managed numbers", type: 'not_managed_number' },
    ]);
    expect(await api.db.prisma.call.count()).toBe(before);
  });

  it('asks for a phone number, or an assistant, when the organisation has none to call with', async ({ api }) => {
    const bare = await api.tenant('Bare');
    const none = await api.call(bare, 'POST', '/api/telephony/calls/initiate', { to_phone_number: '+14155550117' });
    expect(none.status).toBe(400);
    expect(none.body.code).toBe('phone_number_required');
    const conn = await api.call(bare, 'POST', '/api/phone-connections', { name: 'C', sip_address: 'sip.example.net' });
    await api.call(bare, 'POST', '/api/phone-numbers', { number: '+14155550177', phone_connection_id: conn.body.data.id });
    const noAssistant = await api.call(bare, 'POST', '/api/telephony/calls/initiate', { to_phone_number: '+14155550117' });
    expect(noAssistant.status).toBe(400);
    expect(noAssistant.body.code).toBe('assistant_required');
    // Another organisation's assistant reads as no assistant at all.
    const foreign = await api.call(bare, 'POST', '/api/telephony/calls/initiate', { to_phone_number: '+14155550117', assistant_id: assistantId });
    expect(foreign.status).toBe(422);
    expect(foreign.body.detail[0].loc).toEqual(['body', 'assistant_id']);
  });
});

describe('calls accepted before a restart', () => {
  it('are dialled by the next process from the durable queue', async ({ api, acme, callOf }) => {
    const row = await api.db.prisma.call.create({
      data: {
        callSid: 'CA00000000000000000000000000000abc',
        organizationId: acme.organizationId,
        assistantId,
        direction: 'outbound',
        transport: 'sip',
        status: 'queued',
        fromNumber: '+14155550100',
        toNumber: '+14155550118',
        phoneNumberId: (await api.db.prisma.phoneNumber.findFirstOrThrow({ where: { number: '+14155550100' } })).id,
      },
    });
    await until(async () => (await callOf(row.callSid)).providerCallSid, 5000);
  });
});

describe('POST /api/web-calls', () => {
  it('creates the call and its room with the agent, and returns a token that joins only that room', async ({ api, acme, livekit, callOf }) => {
    const res = await api.call(acme, 'POST', '/api/web-calls', { assistant_id: assistantId, variables: { plan: 'gold' } });
    expect(res.status).toBe(201);
    const data = res.body.data as { call_sid: string; room: string; participant_token: string; livekit_url: string; expires_at: string };
    expect(data.room).toBe(`call-${data.call_sid}`);
    expect(data.livekit_url).toBe(livekit.url);
    const claims = JSON.parse(Buffer.from(data.participant_token.split('.')[1]!, 'base64url').toString()) as Record<string, any>;
    expect(claims).toMatchObject({
      iss: livekit.apiKey,
      sub: `web-${data.call_sid}`,
      video: { room: data.room, roomJoin: true, canPublish: true, canSubscribe: true },
    });
    expect(claims.video.roomCreate).toBeUndefined();
    expect(claims.exp - claims.nbf).toBeLessThanOrEqual(600);
    expect(await callOf(data.call_sid)).toMatchObject({ direction: 'inbound', transport: 'web', status: 'queued', variables: { plan: 'gold' } });
    expect(livekit.of('CreateDispatch').some((c) => c.body.room === data.room)).toBe(true);
  });

  it('answers 502 and records the call as failed when LiveKit refuses the room', async ({ api, acme, livekit }) => {
    livekit.down(true);
    try {
      const res = await api.call(acme, 'POST', '/api/web-calls', { assistant_id: assistantId });
      expect(res.status).toBe(502);
      const failed = await api.db.prisma.call.findFirstOrThrow({ where: { transport: 'web', status: 'failed' } });
      expect(failed.endReason).toBe('livekit_unavailable');
    } finally {
      livekit.down(false);
    }
  });
});

describe('without a LiveKit server', () => {
  it('answers 503 to outbound and web calls, saying what to configure', async () => {
    const bare = await createApiContext();
    try {
      const tenant = await bare.tenant();
      const conn = await bare.call(tenant, 'POST', '/api/phone-connections', { name: 'C', sip_address: 'sip.example.net' });
      const assistant = await bare.call(tenant, 'POST', '/api/assistants', { name: 'A' });
      await bare.call(tenant, 'POST', '/api/phone-numbers', {
        number: '+14155550178',
        phone_connection_id: conn.body.data.id,
        assistant_id: assistant.body.id,
      });
      const res = await bare.call(tenant, 'POST', '/api/telephony/calls/initiate', { to_phone_number: '+14155550119' });
      expect(res.status).toBe(503);
      expect(res.body.code).toBe('telephony_unavailable');
      expect(res.body.message).toContain('LIVEKIT_URL');
      expect(await bare.db.prisma.call.count()).toBe(0);
    } finally {
      await bare.close();
    }
  });

  it('checks an outbound request in full first, answering exactly as with LiveKit, and 503 only for a call it would queue', async () => {
    const bare = await createApiContext();
    try {
      const tenant = await bare.tenant();
      const initiate = (body: unknown) => bare.call(tenant, 'POST', '/api/telephony/calls/initiate', body);
      // A body that is not valid.
      const bad = await initiate({ to_phone_number: '4155550116' });
      expect(bad.status).toBe(422);
      expect(bad.body.detail[0].loc).toEqual(['body', 'to_phone_number']);
      // No managed number at all.
      expect((await initiate({ to_phone_number: '+14155550116' })).body).toMatchObject({ code: 'phone_number_required' });
      const conn = await bare.call(tenant, 'POST', '/api/phone-connections', { name: 'C', sip_address: 'sip.example.net' });
      await bare.call(tenant, 'POST', '/api/phone-numbers', { number: '+14155550179', phone_connection_id: conn.body.data.id });
      // A number the organisation does not manage: the same 422 as with LiveKit.
      const foreign = await initiate({ to_phone_number: '+14155550116', from_phone_number: '+14155550999' });
      expect(foreign.status).toBe(422);
      expect(foreign.body.detail).toEqual([
        { loc: ['body', 'from_phone_number'], msg: "Value is not one of the organisation's managed numbers", type: 'not_managed_number' },
      ]);
      // No assistant, given or on the number; an assistant that does not exist.
      const noAssistant = await initiate({ to_phone_number: '+14155550116' });
      expect(noAssistant.status).toBe(400);
      expect(noAssistant.body.code).toBe('assistant_required');
      const missing = await initiate({ to_phone_number: '+14155550116', assistant_id: 2_147_483_646 });
      expect(missing.status).toBe(422);
      expect(missing.body.detail[0].loc).toEqual(['body', 'assistant_id']);
      // Everything right: now the missing LiveKit server is the answer.
      const assistant = await bare.call(tenant, 'POST', '/api/assistants', { name: 'A' });
      const queued = await initiate({ to_phone_number: '+14155550116', assistant_id: assistant.body.id });
      expect(queued.status).toBe(503);
      expect(queued.body.code).toBe('telephony_unavailable');
      expect(await bare.db.prisma.call.count()).toBe(0);
    } finally {
      await bare.close();
    }
  });
  it('checks a web call request first on both transports, and 503 only for a call it would create', async () => {
    const bare = await createApiContext();
    try {
      const tenant = await bare.tenant();
      const other = await bare.tenant();
      const inactive = await bare.call(tenant, 'POST', '/api/assistants', { name: 'Off', is_active: false });
      const foreign = await bare.call(other, 'POST', '/api/assistants', { name: 'Theirs' });
      const active = await bare.call(tenant, 'POST', '/api/assistants', { name: 'On' });
      // LiveKit web calls without LiveKit, and built-in browser calls without a worker in this process.
      for (const path of ['/api/web-calls', '/api/web-calls/browser']) {
        for (const id of [2_147_483_646, foreign.body.id]) {
          const res = await bare.call(tenant, 'POST', path, { assistant_id: id });
          expect(res.status, `${path} ${id}`).toBe(422);
          expect(res.body.detail).toEqual([{ loc: ['body', 'assistant_id'], msg: 'No such assistant', type: 'not_found' }]);
        }
        expect((await bare.call(tenant, 'POST', path, { assistant_id: inactive.body.id })).body.code).toBe('assistant_inactive');
        const good = await bare.call(tenant, 'POST', path, { assistant_id: active.body.id });
        expect(good.status, path).toBe(503);
      }
      expect(await bare.db.prisma.call.count()).toBe(0);
    } finally {
      await bare.close();
    }
  });
});
