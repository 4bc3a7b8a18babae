import { CarrierRequestError, type CarrierAccount } from '../carrier.js';

// Twilio's REST API (2010-04-01) for calls, by plain fetch: form-encoded requests with HTTP basic auth of the account
// SID and auth token, JSON answers, and errors as `{code, message, more_info, status}`.

/** Twilio answers a create or an update within a second or two; 15 s bounds a request that will not come back. */
export const CARRIER_REQUEST_TIMEOUT_MS = 15_000;

/** The call resource, as far as the service reads it. */
export interface TwilioCall {
  sid: string;
  status: string;
  to?: string;
  from?: string;
  /** RFC 2822, e.g. "Tue, 24 Nov 2026 02:28:26 +0000". */
  date_created?: string | null;
  answered_by?: string | null;
}

interface TwilioError {
  code?: number;
  message?: string;
}

/** Twilio's error codes that say the number called is no number, or cannot be called from this account. */
const REFUSALS: Record<number, string> = {
  20003: 'carrier_auth_failed',
  20404: 'carrier_account_not_found',
  21205: 'invalid_callback_url',
  21210: 'caller_id_refused',
  21212: 'caller_id_refused',
  21211: 'invalid_number',
  21214: 'invalid_number',
  21215: 'carrier_refused',
  21216: 'carrier_refused',
  21217: 'invalid_number',
  21219: 'carrier_refused',
};

export function callsUrl(account: CarrierAccount, callSid?: string): string {
  const base = `${account.apiBaseUrl.replace(/\/+$/, '')}/2010-04-01/Accounts/${encodeURIComponent(account.accountSid)}/Calls`;
  return callSid === undefined ? `${base}.json` : `${base}/${encodeURIComponent(callSid)}.json`;
}

/**
 * One request; answers the parsed JSON of a 2xx, or throws CarrierRequestError: `refused` for a 4xx the carrier means
 * (nothing happened), `retry` for 429, `unknown` when no answer came or the carrier failed (5xx): whatever was asked may
 * or may not have happened.
 */
export async function twilioRequest<T>(
  account: CarrierAccount,
  method: 'GET' | 'POST',
  url: string,
  form?: URLSearchParams,
  signal?: AbortSignal,
): Promise<T | null> {
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      headers: {
        authorization: `Basic ${Buffer.from(`${account.accountSid}:${account.authToken}`).toString('base64')}`,
        accept: 'application/json',
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      ...(form ? { body: form.toString() } : {}),
      signal: signal ? AbortSignal.any([AbortSignal.timeout(CARRIER_REQUEST_TIMEOUT_MS), signal]) : AbortSignal.timeout(CARRIER_REQUEST_TIMEOUT_MS),
    });
  } catch (error) {
    throw new CarrierRequestError('unknown', 'carrier_unreachable', `the carrier did not answer (${(error as Error).name})`);
  }
  if (res.status === 404 && method === 'GET') {
    await res.body?.cancel();
    return null;
  }
  if (res.ok) return (await res.json().catch(() => ({}))) as T;
  const body = (await res.json().catch(() => ({}))) as TwilioError;
  const details = { status: res.status, ...(typeof body.code === 'number' ? { carrierCode: body.code } : {}) };
  const said = typeof body.message === 'string' ? `: ${body.message.slice(0, 300)}` : '';
  if (res.status === 429) throw new CarrierRequestError('retry', 'carrier_rate_limited', `the carrier asked to slow down${said}`, details);
  if (res.status >= 500) throw new CarrierRequestError('unknown', 'carrier_unavailable', `the carrier failed (HTTP ${res.status})${said}`, details);
  const reason =
    (typeof body.code === 'number' ? REFUSALS[body.code] : undefined) ??
    (res.status === 401 ? 'carrier_auth_failed' : `carrier_error_${body.code ?? res.status}`);
  throw new CarrierRequestError(
    'refused',
    reason,
    `the carrier refused the request (HTTP ${res.status}${body.code ? `, code ${body.code}` : ''})${said}`,
    details,
  );
}
