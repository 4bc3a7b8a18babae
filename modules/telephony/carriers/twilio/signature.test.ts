import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { twilioSignature, validTwilioSignature } from './signature.js';

// The carrier's documented example (its security guide): auth token 12345, the URL with its query string, and the POST
// parameters of a call; the signature values are the ones the guide prints.

const URL = 'https://mycompany.com/myapp.php?foo=1&bar=2';
const params = (caller: string) => ({ CallSid: 'CA1234567890ABCDE', Caller: caller, Digits: '1234', From: caller, To: '+18005551212' });

describe('carrier request signatures', () => {
  it("matches the values of the carrier's own guide for its example request", () => {
    expect(twilioSignature('12345', URL, params('+14158675310'))).toBe('GvWf1cFY/Q7PnoempGyD5oXAezc=');
    expect(twilioSignature('12345', URL, params('+14158675309'))).toBe('RSOYDt4T1cUTdK1PDd93/VVr8B8=');
  });

  it('matches an HMAC-SHA1 computed here over the URL and the sorted name-value pairs of a status callback', () => {
    const url = 'https://voice.example.com/telephony/twilio/status/CA0123';
    const callback = { To: '+14155550123', CallStatus: 'ringing', CallSid: 'CAabc', AccountSid: 'AC1', SipResponseCode: '180' };
    const data = `${url}AccountSidAC1CallSidCAabcCallStatusringingSipResponseCode180To+14155550123`;
    expect(twilioSignature('token', url, callback)).toBe(crypto.createHmac('sha1', 'token').update(data).digest('base64'));
  });

  it('refuses a missing signature, another token, another URL and a changed parameter', () => {
    const good = twilioSignature('12345', URL, params('+14158675310'));
    expect(validTwilioSignature('12345', URL, params('+14158675310'), good)).toBe(true);
    expect(validTwilioSignature('12345', URL, params('+14158675310'), undefined)).toBe(false);
    expect(validTwilioSignature('54321', URL, params('+14158675310'), good)).toBe(false);
    expect(validTwilioSignature('12345', `${URL}&baz=3`, params('+14158675310'), good)).toBe(false);
    expect(validTwilioSignature('12345', URL, params('+14158675311'), good)).toBe(false);
  });
});
