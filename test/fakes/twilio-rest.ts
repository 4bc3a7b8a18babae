import crypto from 'node:crypto';
import { startHttpServer, type FakeServer } from './http-server.js';
import { connectCallee, type CalleeLeg, type CalleeScript } from './twilio-callee.js';

// The carrier's REST API as Twilio speaks it (2010-04-01), with HTTP basic auth AccountSid:AuthToken, form-encoded
// requests, JSON answers, and its error body `{code, message, more_info, status}`:
//
// - "create call", POST /Accounts/{Sid}/Calls.json: `To`, `From`, inline `Twiml` (or `Url`), `StatusCallback` with
//   `StatusCallbackEvent`s, `Timeout`, `MachineDetection` with `AsyncAmd`. The call then happens as the callee's script
//   says (twilio-callee.ts): signed status callbacks (initiated, ringing, answered, completed with busy / no-answer /
//   failed and the SIP code), the Media Streams socket of the TwiML's `<Connect><Stream>` once answered, and the
//   asynchronous answering-machine callback;
// - "fetch call" and "list calls" (filtered by To and From), GET;
// - "update call", POST /Calls/{CallSid}.json: `Twiml` replaces what the call does (a transfer), `Status=completed`
//   hangs it up.
// - a created call whose TwiML is a `<Gather>` (a warm transfer's briefing, not a stream): once answered, the callee
//   hears its `<Say>`s, presses the key its script says, and the carrier POSTs it (`Digits`, signed) to the Gather's
//   `action`; the TwiML answered there is run: `<Dial><Conference>` joins the conference, `<Hangup/>` ends the call.
//   Without a key the Gather times out after its `timeout` and the call ends. A call redirected by "update call" to
//   `<Dial><Conference>` joins that conference too (`conferences`).
//
// Callbacks are signed as the carrier signs them (X-Twilio-Signature: base64 HMAC-SHA1 of the URL and the sorted
// parameters), computed here on their own.

export interface CarrierError {
  status: number;
  code: number;
  message: string;
}

export interface CallUpdate {
  accountSid: string;
  callSid: string;
  /** The form fields as sent. */
  form: Record<string, string>;
}

export interface CreatedCall {
  sid: string;
  /** The create request's form fields; `StatusCallbackEvent` holds every value given, space-separated. */
  form: Record<string, string>;
  status: string;
  createdAt: Date;
  /** Every callback sent, in order, with the HTTP status our service answered. */
  callbacks: Array<{ kind: 'status' | 'amd'; params: Record<string, string>; answer: number }>;
  /** The callee's leg once answered. */
  leg?: CalleeLeg;
  /** A `<Gather>` call: what the callee heard said, the key pressed, and the TwiML the Gather's action answered. */
  consult?: { said: string[]; digits?: string; reply?: string; replyStatus?: number };
  /** Settles once the call is over at the carrier and its last callback was answered. */
  done: Promise<void>;
}

export interface FakeTwilioRest extends FakeServer {
  accountSid: string;
  authToken: string;
  updates: CallUpdate[];
  /** Calls created through the REST API, oldest first. */
  created: CreatedCall[];
  /** A call in progress on the account; updates to any other call SID answer 404. */
  addCall(callSid: string): void;
  /** The next updates of `callSid` fail with this error (Twilio's 21220 when the call is no longer in progress). */
  failUpdates(callSid: string, error: CarrierError): void;
  /** Called after each successful update: a test playing the carrier stops the media stream, as Twilio does. */
  onUpdate(listener: (update: CallUpdate) => void): void;
  /** Updates of `callSid` take effect (listeners run) `ms` before their answer is sent: the stream stops first. */
  delayAnswers(callSid: string, ms: number): void;
  /** How the phone at `to` responds to calls (default: answered, silent, hung up once the assistant has spoken). */
  scriptCallee(to: string, script: CalleeScript): void;
  /** The next creates fail with this error, creating nothing. */
  failCreates(error: CarrierError | null): void;
  /** The next `count` creates make the call but never answer the request: the connection is dropped. */
  loseCreateAnswers(count: number): void;
  /** Status callbacks are not sent while on (the carrier's callbacks lost). */
  dropCallbacks(on: boolean): void;
  /** Conferences by name, with the SIDs of the calls that joined each, in order. */
  conferences: Map<string, string[]>;
}

export const NOT_IN_PROGRESS: CarrierError = { status: 400, code: 21220, message: 'Call is not in-progress. Cannot redirect.' };
export const INVALID_TO: CarrierError = { status: 400, code: 21211, message: "The 'To' number is not a valid phone number." };

const moreInfo = (code: number) => `https://www.twilio.com/docs/errors/${code}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** The XML character references our TwiML may use, decoded. */
const unescapeXml = (s: string) =>
  s
    .replace(/&#(\d+);/g, (_, n: string) => String.fromCharCode(Number(n)))
    .replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>');

function sign(authToken: string, url: string, params: Record<string, string>): string {
  let data = url;
  for (const key of Object.keys(params).sort()) data += key + params[key];
  return crypto.createHmac('sha1', authToken).update(data, 'utf8').digest('base64');
}

export async function startFakeTwilioRest(options: { accountSid?: string; authToken?: string } = {}): Promise<FakeTwilioRest> {
  const accountSid = options.accountSid ?? `AC${'0123456789abcdef'.repeat(2)}`;
  const authToken = options.authToken ?? 'carrier-auth-token';
  const calls = new Set<string>();
  const failures = new Map<string, CarrierError>();
  const updates: CallUpdate[] = [];
  const listeners: Array<(update: CallUpdate) => void> = [];
  const delays = new Map<string, number>();
  const scripts = new Map<string, CalleeScript>();
  const created: CreatedCall[] = [];
  let createFailure: CarrierError | null = null;
  let lostAnswers = 0;
  let callbacksDropped = false;
  const conferences = new Map<string, string[]>();
  const join = (name: string, callSid: string) => conferences.set(name, [...(conferences.get(name) ?? []), callSid]);
  const conferenceOf = (twiml: string) => /<Dial>[\s\S]*<Conference[^>]*>([^<]+)<\/Conference>/.exec(twiml)?.[1];

  const resource = (call: CreatedCall) => ({
    sid: call.sid,
    account_sid: accountSid,
    to: call.form.To,
    from: call.form.From,
    status: call.status,
    answered_by: null,
    direction: 'outbound-api',
    api_version: '2010-04-01',
    date_created: call.createdAt.toUTCString().replace('GMT', '+0000'),
    uri: `/2010-04-01/Accounts/${accountSid}/Calls/${call.sid}.json`,
  });

  async function callback(call: CreatedCall, kind: 'status' | 'amd', url: string | undefined, params: Record<string, string>): Promise<void> {
    if (!url || (kind === 'status' && callbacksDropped)) return;
    const full = { AccountSid: accountSid, ApiVersion: '2010-04-01', CallSid: call.sid, ...params };
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': sign(authToken, url, full) },
      body: new URLSearchParams(full).toString(),
    }).catch(() => undefined);
    await res?.body?.cancel();
    call.callbacks.push({ kind, params: full, answer: res?.status ?? 0 });
  }

  /** The call's life at the carrier, as the callee's script says, with a callback at each step asked for. */
  async function place(call: CreatedCall, script: CalleeScript): Promise<void> {
    const events = call.form.StatusCallbackEvent?.split(' ') ?? [];
    let sequence = 0;
    const status = async (event: string, callStatus: string, extra: Record<string, string> = {}) => {
      call.status = callStatus;
      // `completed` is always reported to a call with a StatusCallback; the others only when asked for.
      if (event !== 'completed' && !events.includes(event)) return;
      const params = {
        CallStatus: callStatus,
        To: call.form.To!,
        From: call.form.From!,
        Direction: 'outbound-api',
        CallbackSource: 'call-progress-events',
        SequenceNumber: String(sequence++),
        Timestamp: new Date().toUTCString(),
        ...extra,
      };
      await callback(call, 'status', call.form.StatusCallback, params);
    };
    await sleep(20);
    await status('initiated', 'initiated');
    await sleep(30);
    const outcome = script.outcome ?? 'answer';
    if (outcome === 'failed') return status('completed', 'failed', { SipResponseCode: String(script.sipCode ?? 404) });
    await status('ringing', 'ringing');
    if (outcome === 'no-answer') {
      await sleep(script.ringMs ?? Math.min(Number(call.form.Timeout ?? 60) * 1000, 2000));
      return status('completed', 'no-answer', { SipResponseCode: '487' });
    }
    await sleep(script.ringMs ?? 200);
    if (outcome === 'busy') return status('completed', 'busy', { SipResponseCode: '486' });

    const twiml = call.form.Twiml ?? '';
    if (/<Gather[\s>]/.test(twiml)) return gather(call, script, twiml, status);
    const url = /<Stream url="([^"]+)"/.exec(twiml)?.[1];
    const token = /<Parameter name="token" value="([^"]+)"\/>/.exec(twiml)?.[1];
    if (!url || !token) return status('completed', 'failed', { SipResponseCode: '500' });
    const answered = status('answered', 'in-progress');
    const startedAt = Date.now();
    call.leg = await connectCallee(unescapeXml(url), unescapeXml(token), call.sid, script);
    await answered;
    if (call.form.MachineDetection && call.form.AsyncAmd === 'true') {
      void sleep(400).then(() =>
        callback(call, 'amd', call.form.AsyncAmdStatusCallback, { AnsweredBy: script.answeredBy ?? 'human', MachineDetectionDuration: '400' }),
      );
    }
    await call.leg.ended;
    await status('completed', 'completed', { CallDuration: String(Math.round((Date.now() - startedAt) / 1000)) });
  }

  /** A person (or a machine) answering a `<Gather>`: hears the words, maybe presses a key, and the answer is run. */
  async function gather(
    call: CreatedCall,
    script: CalleeScript,
    twiml: string,
    status: (event: string, callStatus: string, extra?: Record<string, string>) => Promise<void>,
  ) {
    const tag = /<Gather([^>]*)>([\s\S]*?)<\/Gather>/.exec(twiml);
    const attr = (name: string) => new RegExp(`${name}="([^"]*)"`).exec(tag?.[1] ?? '')?.[1];
    const consult: NonNullable<CreatedCall['consult']> = {
      said: [...(tag?.[2] ?? '').matchAll(/<Say[^>]*>([\s\S]*?)<\/Say>/g)].map((m) => unescapeXml(m[1]!)),
    };
    call.consult = consult;
    let settle!: (how: 'callee_hung_up' | 'service_closed' | 'carrier_ended') => void;
    const ended = new Promise<'callee_hung_up' | 'service_closed' | 'carrier_ended'>((r) => (settle = r));
    const startedAt = Date.now();
    call.leg = { heard: [], answeredAt: startedAt, ended, end: () => settle('carrier_ended') };
    await status('answered', 'in-progress');
    if (call.form.MachineDetection && call.form.AsyncAmd === 'true') {
      void sleep(300).then(() =>
        callback(call, 'amd', call.form.AsyncAmdStatusCallback, { AnsweredBy: script.answeredBy ?? 'human', MachineDetectionDuration: '300' }),
      );
    }
    const timeoutMs = Number(attr('timeout') ?? 5) * 1000;
    const pressed =
      script.press !== undefined ? sleep(script.pressAfterMs ?? 300).then(() => 'press' as const) : sleep(timeoutMs).then(() => 'timeout' as const);
    const first = await Promise.race([pressed, ended]);
    if (first === 'press') {
      const action = unescapeXml(attr('action') ?? '');
      const params = {
        AccountSid: accountSid,
        ApiVersion: '2010-04-01',
        CallSid: call.sid,
        CallStatus: 'in-progress',
        Direction: 'outbound-api',
        From: call.form.From!,
        To: call.form.To!,
        Digits: script.press!,
        FinishedOnKey: '',
      };
      consult.digits = script.press;
      const res = await fetch(action, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': sign(authToken, action, params) },
        body: new URLSearchParams(params).toString(),
      }).catch(() => undefined);
      consult.replyStatus = res?.status ?? 0;
      consult.reply = (await res?.text().catch(() => '')) ?? '';
      const room = conferenceOf(consult.reply);
      if (room) {
        join(room, call.sid);
        // In the conference until the call is ended, or the script's cap.
        await Promise.race([ended, sleep(script.maxMs ?? 60_000)]);
      }
    } else if (first === 'timeout') {
      // A machine, or a person who said nothing: the Gather gives up, and the rest of the TwiML ends the call.
      await Promise.race([ended, sleep(script.maxMs ?? 0)]);
    }
    settle('callee_hung_up');
    await status('completed', 'completed', { CallDuration: String(Math.round((Date.now() - startedAt) / 1000)) });
  }

  const server = await startHttpServer(async (req, res) => {
    const fail = (error: CarrierError, headers: Record<string, string> = {}) => {
      res.writeHead(error.status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify({ code: error.code, message: error.message, more_info: moreInfo(error.code), status: error.status }));
    };
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const [path, query = ''] = req.path.split('?') as [string, string?];
    const match = /^\/2010-04-01\/Accounts\/([^/]+)\/Calls(?:\/([^/]+))?\.json$/.exec(path);
    if (!match) return fail({ status: 404, code: 20404, message: `The requested resource ${path} was not found` });
    const [, account, callSid] = match as unknown as [string, string, string | undefined];
    const [user, password] = Buffer.from((req.headers.authorization ?? '').replace(/^Basic /, ''), 'base64')
      .toString()
      .split(':');
    if (!req.headers.authorization?.startsWith('Basic ') || user !== accountSid || password !== authToken) {
      return fail({ status: 401, code: 20003, message: 'Authenticate' }, { 'www-authenticate': 'Basic realm="Twilio API"' });
    }
    // An account's credentials reach only the account's own resources.
    if (account !== accountSid) return fail({ status: 403, code: 20003, message: 'Authenticate' });

    if (req.method === 'GET') {
      if (callSid) {
        const call = created.find((c) => c.sid === callSid);
        return call ? json(200, resource(call)) : fail({ status: 404, code: 20404, message: `The requested resource ${path} was not found` });
      }
      const filter = new URLSearchParams(query);
      const matching = created.filter(
        (c) => (!filter.get('To') || c.form.To === filter.get('To')) && (!filter.get('From') || c.form.From === filter.get('From')),
      );
      return json(200, { calls: matching.reverse().map(resource), page: 0, page_size: Number(filter.get('PageSize') ?? 50) });
    }
    if (req.method !== 'POST') return fail({ status: 405, code: 20004, message: 'Method not allowed' });
    if (!String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) {
      return fail({ status: 400, code: 20001, message: 'Request body must be form encoded' });
    }
    const params = new URLSearchParams(req.body);
    const form = Object.fromEntries(params);

    if (!callSid) {
      if (!form.To) return fail({ status: 400, code: 21201, message: "No 'To' number is specified" });
      if (!form.From) return fail({ status: 400, code: 21603, message: "A 'From' phone number is required." });
      if (!form.Twiml && !form.Url) return fail({ status: 400, code: 21205, message: 'Url or Twiml is required' });
      if (form.Twiml !== undefined && !/^(<\?xml[^>]*\?>)?<Response>[\s\S]*<\/Response>\s*$/.test(form.Twiml))
        return fail({ status: 400, code: 12100, message: 'Document parse failure' });
      if (!/^\+[1-9]\d{7,14}$/.test(form.To)) return fail(INVALID_TO);
      if (createFailure) return fail(createFailure);
      const events = params
        .getAll('StatusCallbackEvent')
        .flatMap((e) => e.split(' '))
        .filter(Boolean);
      const call: CreatedCall = {
        sid: `CA${crypto.randomBytes(16).toString('hex')}`,
        form: { ...form, ...(events.length ? { StatusCallbackEvent: events.join(' ') } : {}) },
        status: 'queued',
        createdAt: new Date(),
        callbacks: [],
        done: Promise.resolve(),
      };
      created.push(call);
      calls.add(call.sid);
      call.done = place(call, scripts.get(form.To) ?? {}).catch(() => {});
      if (lostAnswers > 0) {
        lostAnswers--;
        // The call is made; its answer never reaches the client.
        res.socket?.destroy();
        return;
      }
      return json(201, resource(call));
    }

    if (!calls.has(callSid)) return fail({ status: 404, code: 20404, message: `The requested resource ${path} was not found` });
    if (form.Twiml !== undefined && !/<Response>[\s\S]*<\/Response>\s*$/.test(form.Twiml))
      return fail({ status: 400, code: 12100, message: 'Document parse failure' });
    const failure = failures.get(callSid);
    if (failure) return fail(failure);
    const placed = created.find((c) => c.sid === callSid);
    if (form.Status === 'completed' || form.Status === 'canceled') {
      if (placed && ['completed', 'busy', 'no-answer', 'failed', 'canceled'].includes(placed.status)) return fail(NOT_IN_PROGRESS);
      updates.push({ accountSid: account, callSid, form });
      placed?.leg?.end();
      return json(200, { ...(placed ? resource(placed) : { sid: callSid }), status: 'completed' });
    }
    const update = { accountSid: account, callSid, form };
    updates.push(update);
    const room = form.Twiml !== undefined ? conferenceOf(form.Twiml) : undefined;
    if (room) join(room, callSid);
    const delay = delays.get(callSid);
    if (delay !== undefined) {
      for (const listener of listeners) listener(update);
      await sleep(delay);
    }
    json(200, { sid: callSid, account_sid: account, status: 'in-progress', api_version: '2010-04-01', uri: `${path}` });
    if (delay === undefined) for (const listener of listeners) listener(update);
    // A call of ours redirected to new TwiML (a transfer's <Dial>) leaves its stream: the carrier stops it.
    if (form.Twiml !== undefined) placed?.leg?.end();
  });

  return {
    ...server,
    accountSid,
    authToken,
    updates,
    created,
    addCall: (callSid) => void calls.add(callSid),
    failUpdates: (callSid, error) => void failures.set(callSid, error),
    onUpdate: (listener) => void listeners.push(listener),
    delayAnswers: (callSid, ms) => void delays.set(callSid, ms),
    scriptCallee: (to, script) => void scripts.set(to, script),
    failCreates: (error) => void (createFailure = error),
    loseCreateAnswers: (count) => void (lostAnswers = count),
    dropCallbacks: (on) => void (callbacksDropped = on),
    conferences,
  };
}
