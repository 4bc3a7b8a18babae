import { VendorTargetRefused } from '../../../lib/net/vendor-targets.js';

// One answer of a vendor read within bounds: a deadline for the whole exchange (the body too, since a vendor can send
// headers at once and the rest slowly) and a cap on the bytes read, past which the answer is dropped unread. Requests
// go through the `fetch` they are given: the vendor guard's (lib/net/vendor-targets.ts), so that a catalogue or a
// preview is read only where the service would send a call's audio.

/** Why a read gave nothing usable, in the terms the builder explains it in. */
export type ReadFailure = 'refused_key' | 'unanswered' | 'too_large' | 'refused_address';

export class CatalogueReadError extends Error {
  constructor(
    readonly reason: ReadFailure,
    message: string,
  ) {
    super(message);
    this.name = 'CatalogueReadError';
  }
}

export interface BoundedAnswer {
  status: number;
  contentType: string | null;
  body: Buffer;
}

export interface ReadBounds {
  timeoutMs: number;
  maxBytes: number;
}

function failureOf(error: unknown, bounds: ReadBounds): CatalogueReadError {
  if (error instanceof CatalogueReadError) return error;
  if (error instanceof VendorTargetRefused) return new CatalogueReadError('refused_address', error.message);
  const name = (error as { name?: string } | undefined)?.name;
  if (name === 'TimeoutError' || name === 'AbortError') return new CatalogueReadError('unanswered', `no answer within ${bounds.timeoutMs} ms`);
  return new CatalogueReadError('unanswered', error instanceof Error ? error.message.slice(0, 200) : 'request failed');
}

/** GET `url` and read its answer whole, within `bounds`; any status is returned, the caller judges it. */
export async function readBounded(http: typeof fetch, url: string, headers: Record<string, string>, bounds: ReadBounds): Promise<BoundedAnswer> {
  const signal = AbortSignal.timeout(bounds.timeoutMs);
  try {
    const response = await http(url, { method: 'GET', headers, signal });
    const declared = Number(response.headers.get('content-length') ?? NaN);
    if (declared > bounds.maxBytes) {
      await response.body?.cancel().catch(() => undefined);
      throw new CatalogueReadError('too_large', `answer of ${declared} bytes, over ${bounds.maxBytes}`);
    }
    const chunks: Uint8Array[] = [];
    let size = 0;
    const reader = response.body?.getReader();
    while (reader) {
      const part = await reader.read();
      if (part.done) break;
      size += part.value.byteLength;
      if (size > bounds.maxBytes) {
        await reader.cancel().catch(() => undefined);
        throw new CatalogueReadError('too_large', `answer over ${bounds.maxBytes} bytes`);
      }
      chunks.push(part.value);
    }
    return { status: response.status, contentType: response.headers.get('content-type'), body: Buffer.concat(chunks) };
  } catch (error) {
    throw failureOf(error, bounds);
  }
}

/** GET `url` and parse its JSON answer; a refused key (401, 403), any other status but 2xx, or a body not JSON throw. */
export async function readJson(http: typeof fetch, url: string, headers: Record<string, string>, bounds: ReadBounds): Promise<unknown> {
  const answer = await readBounded(http, url, { accept: 'application/json', ...headers }, bounds);
  if (answer.status === 401 || answer.status === 403) throw new CatalogueReadError('refused_key', `key refused (${answer.status})`);
  if (answer.status < 200 || answer.status >= 300) throw new CatalogueReadError('unanswered', `status ${answer.status}`);
  try {
    return JSON.parse(answer.body.toString('utf8'));
  } catch {
    throw new CatalogueReadError('unanswered', 'answer is not JSON');
  }
}
