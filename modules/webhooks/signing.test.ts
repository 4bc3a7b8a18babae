import { describe, expect, it } from 'vitest';
import { generateSecret, secretHint, sign, signedHeaders, verify } from './signing.js';

describe('Standard Webhooks signing', () => {
  it('reproduces the reference example of the Standard Webhooks specification', () => {
    const signature = sign('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}');
    expect(signature).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('signs with every secret given, space-separated, current first', () => {
    const current = generateSecret();
    const previous = generateSecret();
    const headers = signedHeaders([current, previous], 'evt_1', 1_700_000_000, '{}');
    expect(headers['webhook-signature'].split(' ')).toEqual([sign(current, 'evt_1', 1_700_000_000, '{}'), sign(previous, 'evt_1', 1_700_000_000, '{}')]);
    expect(headers).toMatchObject({ 'webhook-id': 'evt_1', 'webhook-timestamp': '1700000000' });
  });

  it('verifies a matching signature, and rejects a changed body, another secret or a stale timestamp', () => {
    const secret = generateSecret();
    const h = signedHeaders([secret], 'evt_2', 1_700_000_000, '{"a":1}');
    const headers = { id: h['webhook-id'], timestamp: h['webhook-timestamp'], signature: h['webhook-signature'] };
    expect(verify(secret, headers, '{"a":1}', { nowS: 1_700_000_010 })).toBe(true);
    expect(verify(secret, headers, '{"a":2}', { nowS: 1_700_000_010 })).toBe(false);
    expect(verify(generateSecret(), headers, '{"a":1}', { nowS: 1_700_000_010 })).toBe(false);
    expect(verify(secret, headers, '{"a":1}', { nowS: 1_700_000_000 + 301 })).toBe(false);
  });

  it('makes 32-byte whsec_ secrets and shows only a short hint of them', () => {
    const secret = generateSecret();
    expect(secret).toMatch(/^whsec_/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    expect(secretHint(secret)).toBe(`${secret.slice(0, 10)}…`);
  });
});
