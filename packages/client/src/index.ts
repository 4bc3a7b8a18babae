import createFetchClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { components, operations, paths } from './schema.js';

// The platform's REST API, typed from its OpenAPI document: every path, parameter, body and answer is checked by the
// compiler, and each call answers `{ data }` or `{ error }` (openapi-fetch) rather than throwing on a 4xx. The types in
// schema.ts are generated (npm run client:generate in the repository); this file only adds the key and the base URL.

export type { components, operations, paths };
/** The document's named schemas: `Schemas['Assistant']`, `Schemas['Call']`, `Schemas['HTTPValidationError']`. */
export type Schemas = components['schemas'];
export type VoicePlatformClient = Client<paths>;

export interface VoicePlatformOptions {
  /** Where the service runs, e.g. `https://voice.example.com` (no `/api`: the paths carry it). */
  baseUrl: string;
  /** An API key of the organisation, sent as `Authorization: Bearer`. */
  apiKey: string;
  /** Another fetch (a proxy's, a test's); default: the global one. */
  fetch?: ClientOptions['fetch'];
  /** Headers sent with every request, besides the key. */
  headers?: Record<string, string>;
}

export function createVoicePlatformClient(options: VoicePlatformOptions): VoicePlatformClient {
  return createFetchClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers: { ...options.headers, authorization: `Bearer ${options.apiKey}` },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
}

export type ValidationError = Schemas['HTTPValidationError'];
export type ErrorResponse = Schemas['ErrorResponse'];

/** A 422's body: the spec's `detail[]`, one `{ loc, msg, type }` per refused field; any other error is an ErrorResponse. */
export function isValidationError(error: unknown): error is ValidationError {
  return typeof error === 'object' && error !== null && Array.isArray((error as { detail?: unknown }).detail);
}
