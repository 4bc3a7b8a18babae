import { describe, expect, it } from 'vitest';
import { guardedLookup, isPublicAddress } from './target-guard.js';

describe('which addresses a webhook may reach', () => {
  it('refuses loopback, private, link-local, shared, reserved, documentation and multicast IPv4', () => {
    for (const address of [
      '127.0.0.1',
      '127.255.0.9',
      '10.0.0.1',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.0.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '192.0.2.1',
      '198.18.0.1',
      '203.0.113.5',
      '224.0.0.1',
      '255.255.255.255',
    ]) {
      expect(isPublicAddress(address), address).toBe(false);
    }
  });

  it('refuses loopback, unspecified, unique-local, link-local, multicast and mapped private IPv6', () => {
    for (const address of [
      '::1',
      '::',
      'fd00::1',
      'fc00::1',
      'fe80::1',
      'ff02::1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '64:ff9b::10.0.0.1',
      '2001:db8::1',
      '[::1]',
    ]) {
      expect(isPublicAddress(address), address).toBe(false);
    }
  });

  it('allows public unicast addresses', () => {
    for (const address of ['93.184.215.14', '8.8.8.8', '172.32.0.1', '2606:4700::6810:84e5', '::ffff:8.8.8.8', '[2a00:1450:4001::200e]']) {
      expect(isPublicAddress(address), address).toBe(true);
    }
  });

  it('refuses anything that is not an address', () => {
    expect(isPublicAddress('localhost')).toBe(false);
    expect(isPublicAddress('')).toBe(false);
  });

  it('fails the lookup of a name that resolves to loopback, unless private targets are allowed', async () => {
    const resolve = (allow: boolean) => new Promise<unknown>((done) => guardedLookup(allow)('localhost', {}, (error, address) => done(error ?? address)));
    expect(await resolve(false)).toMatchObject({ code: 'ETARGETREFUSED' });
    expect(await resolve(true)).toMatch(/^(127\.0\.0\.1|::1)$/);
  });
});
