import dns from 'node:dns/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPublicAddress } from './target-guard.js';
import { checkVendorTarget, parseHostAllowances, vendorFetch, vendorUrlRefusal, VendorTargetRefused } from './vendor-targets.js';

const NONE = { privateHosts: [] };

describe('the hosts an operator allows (VENDOR_PRIVATE_HOSTS)', () => {
  it('reads host, host:port and bracketed IPv6 entries, and names the entries that are none of those', () => {
    expect(parseHostAllowances(' 127.0.0.1:11434, LLM.internal ,[::1]:8080, ::1, bad host, 10.0.0.1:99999')).toEqual({
      allowed: [
        { host: '127.0.0.1', port: 11434 },
        { host: 'llm.internal', port: null },
        { host: '::1', port: 8080 },
        { host: '::1', port: null },
      ],
      invalid: ['bad host', '10.0.0.1:99999'],
    });
  });

  it('allows a host on its port only when one is named, and on any port otherwise', () => {
    const policy = { privateHosts: parseHostAllowances('127.0.0.1:11434,llm.internal').allowed };
    expect(vendorUrlRefusal('http://127.0.0.1:11434/v1', policy)).toBeNull();
    expect(vendorUrlRefusal('http://127.0.0.1:5432/v1', policy)).toMatch(/VENDOR_PRIVATE_HOSTS/);
    expect(vendorUrlRefusal('http://LLM.internal.:8000/v1', policy)).toBeNull();
  });
});

describe('a vendor URL decided without DNS', () => {
  it('refuses loopback, private, link-local, mapped and localhost hosts', () => {
    for (const url of [
      'http://127.0.0.1/',
      'http://10.0.0.1/',
      'http://169.254.169.254/',
      'http://[::1]/',
      'http://[::ffff:10.0.0.1]/',
      'http://localhost:11434/',
      'http://a.localhost/',
      'http://0x7f000001/',
    ]) {
      expect(vendorUrlRefusal(url, NONE), url).toMatch(/loopback, private or reserved/);
    }
  });

  it('accepts public addresses and host names, and refuses what is not an http or ws URL', () => {
    expect(vendorUrlRefusal('https://api.openai.com/v1', NONE)).toBeNull();
    expect(vendorUrlRefusal('wss://8.8.8.8/', NONE)).toBeNull();
    expect(vendorUrlRefusal('ftp://example.com/', NONE)).toMatch(/http/);
    expect(vendorUrlRefusal('nope', NONE)).toBe('Not a URL');
  });
});

describe('connecting to a vendor', () => {
  let server: http.Server;
  let port: number;
  let hits = 0;
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      hits += 1;
      if (req.url === '/redirect') res.writeHead(302, { location: 'http://169.254.169.254/' }).end();
      else res.end('inside');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  /** This machine's own host name resolves to a loopback or private address: a name the no-DNS check lets through. */
  async function insideName(): Promise<string> {
    const name = os.hostname();
    const addresses = await dns.lookup(name, { all: true });
    expect(
      addresses.some((a) => !isPublicAddress(a.address)),
      JSON.stringify(addresses),
    ).toBe(true);
    return name;
  }

  it('refuses a host name whose DNS answer is inside, on the connection itself, and the server hears nothing', async () => {
    const name = await insideName();
    const before = hits;
    expect(vendorUrlRefusal(`http://${name}:${port}/`, NONE)).toBeNull();
    await expect(vendorFetch(NONE)(`http://${name}:${port}/`)).rejects.toBeInstanceOf(VendorTargetRefused);
    await expect(checkVendorTarget(`http://${name}:${port}/`, NONE)).rejects.toBeInstanceOf(VendorTargetRefused);
    await expect(vendorFetch(NONE)(new Request(`http://127.0.0.1:${port}/`, { method: 'POST', body: 'key' }))).rejects.toBeInstanceOf(VendorTargetRefused);
    expect(hits).toBe(before);
  });

  it('connects to an allowed host, by address or by name, and does not follow a redirect', async () => {
    const name = await insideName();
    const policy = {
      privateHosts: [
        { host: '127.0.0.1', port },
        { host: name, port },
      ],
    };
    expect(await (await vendorFetch(policy)(`http://127.0.0.1:${port}/`)).text()).toBe('inside');
    expect(await (await vendorFetch(policy)(`http://${name}:${port}/`)).text()).toBe('inside');
    await expect(checkVendorTarget(`http://${name}:${port}/`, policy)).resolves.toBeUndefined();
    expect((await vendorFetch(policy)(`http://127.0.0.1:${port}/redirect`)).status).toBe(302);
  });
});
