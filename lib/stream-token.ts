import crypto from 'node:crypto';

// A short-lived token binding a media socket to one call: `<call_sid>.<expiry seconds>.<HMAC-SHA256>`. The voice
// webhook hands it to the carrier inside the TwiML; the socket is accepted only with it, so nobody can attach audio to
// a call they did not place the webhook for.

export class StreamTokens {
  constructor(
    private readonly secret: Buffer,
    readonly ttlSeconds = 120,
  ) {}

  /** `ttlSeconds` overrides the default for one token: an outbound call's lasts while it rings. */
  sign(callSid: string, now = Date.now(), ttlSeconds = this.ttlSeconds): string {
    const expires = Math.floor(now / 1000) + ttlSeconds;
    return `${callSid}.${expires}.${this.#mac(`${callSid}.${expires}`)}`;
  }

  /** The call sid the token was made for, or null when it is forged, malformed or expired. */
  verify(token: string, now = Date.now()): string | null {
    const [callSid, expires, mac] = token.split('.');
    if (!callSid || !expires || !mac || !/^\d+$/.test(expires)) return null;
    const expected = Buffer.from(this.#mac(`${callSid}.${expires}`));
    const given = Buffer.from(mac);
    if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) return null;
    if (Number(expires) * 1000 < now) return null;
    return callSid;
  }

  #mac(text: string): string {
    return crypto.createHmac('sha256', this.secret).update(text).digest('base64url');
  }
}
