import { startHttpServer, type FakeServer } from './http-server.js';

// The carrier's REST API as Twilio speaks it, for the one request a call makes: "update call",
// POST /2010-04-01/Accounts/{AccountSid}/Calls/{CallSid}.json with a form-encoded body (`Twiml` to replace what the
// call is doing), HTTP basic auth AccountSid:AuthToken. Answers the call resource as JSON, or Twilio's error body
// `{code, message, more_info, status}` with the HTTP status. Every update is recorded.

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

export interface FakeTwilioRest extends FakeServer {
  accountSid: string;
  authToken: string;
  updates: CallUpdate[];
  /** A call in progress on the account; updates to any other call SID answer 404. */
  addCall(callSid: string): void;
  /** The next updates of `callSid` fail with this error (Twilio's 21220 when the call is no longer in progress). */
  failUpdates(callSid: string, error: CarrierError): void;
  /** Called after each successful update: a test playing the carrier stops the media stream, as Twilio does. */
  onUpdate(listener: (update: CallUpdate) => void): void;
  /** Updates of `callSid` take effect (listeners run) `ms` before their answer is sent: the stream stops first. */
  delayAnswers(callSid: string, ms: number): void;
}

export const NOT_IN_PROGRESS: CarrierError = { status: 400, code: 21220, message: 'Call is not in-progress. Cannot redirect.' };

const moreInfo = (code: number) => `https://www.twilio.com/docs/errors/${code}`;

export async function startFakeTwilioRest(options: { accountSid?: string; authToken?: string } = {}): Promise<FakeTwilioRest> {
  const accountSid = options.accountSid ?? `AC${'0123456789abcdef'.repeat(2)}`;
  const authToken = options.authToken ?? 'carrier-auth-token';
  const calls = new Set<string>();
  const failures = new Map<string, CarrierError>();
  const updates: CallUpdate[] = [];
  const listeners: Array<(update: CallUpdate) => void> = [];
  const delays = new Map<string, number>();

  const server = await startHttpServer(async (req, res) => {
    const fail = (error: CarrierError, headers: Record<string, string> = {}) => {
      res.writeHead(error.status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify({ code: error.code, message: error.message, more_info: moreInfo(error.code), status: error.status }));
    };
    const path = req.path.split('?')[0]!;
    const match = /^\/2010-04-01\/Accounts\/([^/]+)\/Calls\/([^/]+)\.json$/.exec(path);
    if (!match) return fail({ status: 404, code: 20404, message: `The requested resource ${path} was not found` });
    const [, account, callSid] = match as unknown as [string, string, string];
    const [user, password] = Buffer.from((req.headers.authorization ?? '').replace(/^Basic /, ''), 'base64').toString().split(':');
    if (!req.headers.authorization?.startsWith('Basic ') || user !== accountSid || password !== authToken) {
      return fail({ status: 401, code: 20003, message: 'Authenticate' }, { 'www-authenticate': 'Basic realm="Twilio API"' });
    }
    // An account's credentials reach only the account's own resources.
    if (account !== accountSid) return fail({ status: 403, code: 20003, message: 'Authenticate' });
    if (req.method !== 'POST') return fail({ status: 405, code: 20004, message: 'Method not allowed' });
    if (!String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) {
      return fail({ status: 400, code: 20001, message: 'Request body must be form encoded' });
    }
    if (!calls.has(callSid)) return fail({ status: 404, code: 20404, message: `The requested resource ${path} was not found` });
    const form = Object.fromEntries(new URLSearchParams(req.body));
    if (form.Twiml !== undefined && !/<Response>[\s\S]*<\/Response>\s*$/.test(form.Twiml)) return fail({ status: 400, code: 12100, message: 'Document parse failure' });
    const failure = failures.get(callSid);
    if (failure) return fail(failure);
    const update = { accountSid: account, callSid, form };
    updates.push(update);
    const delay = delays.get(callSid);
    if (delay !== undefined) {
      for (const listener of listeners) listener(update);
      await new Promise((r) => setTimeout(r, delay));
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ sid: callSid, account_sid: account, status: 'in-progress', api_version: '2010-04-01', uri: `${path}` }));
    if (delay === undefined) for (const listener of listeners) listener(update);
  });
  return {
    ...server,
    accountSid,
    authToken,
    updates,
    addCall: (callSid) => void calls.add(callSid),
    failUpdates: (callSid, error) => void failures.set(callSid, error),
    onUpdate: (listener) => void listeners.push(listener),
    delayAnswers: (callSid, ms) => void delays.set(callSid, ms),
  };
}
