import { describe, expect, it } from 'vitest';
import { browserUrl } from './startup.js';

describe('the address npm start tells a person to open', () => {
  it('is PUBLIC_URL when set, else the host and port, with localhost for every address and brackets for IPv6', () => {
    expect(browserUrl('127.0.0.1', 3000)).toBe('http://127.0.0.1:3000');
    expect(browserUrl('0.0.0.0', 3000)).toBe('http://localhost:3000');
    expect(browserUrl('::', 8080)).toBe('http://localhost:8080');
    expect(browserUrl('::1', 3000)).toBe('http://[::1]:3000');
    expect(browserUrl('0.0.0.0', 3000, 'https://voice.example.com/')).toBe('https://voice.example.com');
  });
});
