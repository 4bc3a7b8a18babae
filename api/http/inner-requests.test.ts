import { describe, expect, it } from 'vitest';
import Fastify from 'fastify';
import { innerRequestHeaders, isInnerRequest } from './inner-requests.js';

describe('requests the API makes to itself', () => {
  it('are told apart by the process’s own mark, which a header of any other value or length does not pass', async () => {
    const app = Fastify();
    app.get('/who', async (request) => ({ inner: isInnerRequest(request) }));
    const mark = innerRequestHeaders()['x-inner-request']!;
    const asked = async (headers: Record<string, string>) => (await app.inject({ method: 'GET', url: '/who', headers })).json().inner;
    expect(await asked(innerRequestHeaders())).toBe(true);
    expect(await asked({})).toBe(false);
    expect(await asked({ 'x-inner-request': 'x'.repeat(mark.length) })).toBe(false);
    expect(await asked({ 'x-inner-request': `${mark}x` })).toBe(false);
    expect(await asked({ 'x-inner-request': '' })).toBe(false);
    await app.close();
  });
});
