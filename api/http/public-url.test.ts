import { describe, expect, it } from 'vitest';
import { publicBaseUrl } from './public-url.js';

const request = (headers: Record<string, string | string[]>, protocol = 'http') => ({ headers, protocol });

describe('publicBaseUrl', () => {
  it('uses the configured public URL over anything the request says, without its trailing slash', () => {
    const behindProxy = request({ host: '10.0.0.5:3000', 'x-forwarded-proto': 'http', 'x-forwarded-host': 'internal.example' });
    expect(publicBaseUrl(behindProxy, 'https://voice.example.com/')).toBe('https://voice.example.com');
    expect(publicBaseUrl(behindProxy, 'https://voice.example.com')).toBe('https://voice.example.com');
  });

  it("takes a proxy's forwarded scheme and host over the connection's own", () => {
    expect(publicBaseUrl(request({ host: '10.0.0.5:3000', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'voice.example.com' }))).toBe(
      'https://voice.example.com',
    );
  });

  it('takes the first value when several proxies each appended theirs', () => {
    expect(publicBaseUrl(request({ host: '10.0.0.5:3000', 'x-forwarded-proto': 'https, http', 'x-forwarded-host': 'voice.example.com, lb.internal' }))).toBe(
      'https://voice.example.com',
    );
  });

  it('falls back to the Host header and the connection scheme without a proxy, or when its headers are empty', () => {
    expect(publicBaseUrl(request({ host: '127.0.0.1:3000' }))).toBe('http://127.0.0.1:3000');
    expect(publicBaseUrl(request({ host: '127.0.0.1:3000' }, 'https'))).toBe('https://127.0.0.1:3000');
    expect(publicBaseUrl(request({ host: '127.0.0.1:3000', 'x-forwarded-proto': '', 'x-forwarded-host': '' }))).toBe('http://127.0.0.1:3000');
  });

  it('honours a forwarded host whatever the scheme came from', () => {
    expect(publicBaseUrl(request({ host: '10.0.0.5:3000', 'x-forwarded-host': 'voice.example.com' }))).toBe('http://voice.example.com');
  });
});
