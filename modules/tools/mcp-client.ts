import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { NO_PRIVATE_VENDOR_HOSTS, vendorFetch } from '../../lib/net/vendor-targets.js';
import { MAX_MODEL_OUTPUT_CHARS, REDACTED } from './http-executor.js';

// An MCP server's tools, as an mcp tool offers them (docs/tools.md): the official SDK's client over Streamable HTTP,
// its requests made by a fetch that connects only to public addresses unless the operator allows private targets (the
// guard of every URL the service calls for a tenant, checked on the address each socket connects to), with the tool's
// credential headers, and every request bounded by the tool's timeout. A call keeps one connection per server for its
// length; listing for the builder opens one and closes it.

export interface McpTarget {
  url: string;
  /** Credential headers, opened: sent, never shown. */
  secretHeaders: Record<string, string>;
  timeoutMs: number;
}

export interface McpToolInfo {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

export interface McpCallResult {
  /** What the model is given: the answer's text (or its structured content), cut, credentials redacted. */
  output: string;
  is_error: boolean;
  duration_ms: number;
}

/** A fetch that refuses private and loopback addresses unless they are allowed, and follows no redirect. */
function toolFetch(allowPrivateTargets: boolean): typeof fetch {
  if (!allowPrivateTargets) return vendorFetch(NO_PRIVATE_VENDOR_HOSTS);
  return ((input: string | URL | Request, init?: RequestInit) => fetch(input, { ...init, redirect: 'manual' })) as typeof fetch;
}

/** An error as a sentence's end: the SDK's and fetch's messages name the status or the network failure. */
function describeError(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } })?.cause;
  const detail = typeof cause?.code === 'string' ? ` (${cause.code})` : '';
  return `${error instanceof Error ? error.message : String(error)}${detail}`.slice(0, 500);
}

const cut = (text: string) =>
  text.length > MAX_MODEL_OUTPUT_CHARS ? `${text.slice(0, MAX_MODEL_OUTPUT_CHARS)} [cut at ${MAX_MODEL_OUTPUT_CHARS} characters]` : text;

/** The SDK's client, loaded the first time an mcp tool is used: processes whose assistants have none never load it. */
let sdk: Promise<[typeof import('@modelcontextprotocol/sdk/client/index.js'), typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js')]> | undefined;
const loadSdk = () =>
  (sdk ??= Promise.all([import('@modelcontextprotocol/sdk/client/index.js'), import('@modelcontextprotocol/sdk/client/streamableHttp.js')]));

export class McpConnection {
  readonly #client: Client;
  readonly #target: McpTarget;

  private constructor(client: Client, target: McpTarget) {
    this.#client = client;
    this.#target = target;
  }

  /** Connects and initialises within the tool's timeout; rejects with a sentence saying why not. */
  static async open(target: McpTarget, options: { allowPrivateTargets: boolean; signal?: AbortSignal | undefined }): Promise<McpConnection> {
    const [{ Client }, { StreamableHTTPClientTransport }] = await loadSdk();
    const client = new Client({ name: 'voice-platform', version: '0.1.0' });
    const transport = new StreamableHTTPClientTransport(new URL(target.url), {
      requestInit: { headers: target.secretHeaders },
      fetch: toolFetch(options.allowPrivateTargets),
    });
    try {
      await client.connect(transport, { timeout: target.timeoutMs, ...(options.signal ? { signal: options.signal } : {}) });
    } catch (error) {
      await client.close().catch(() => {});
      throw new Error(`the MCP server could not be reached: ${describeError(error)}`, { cause: error });
    }
    return new McpConnection(client, target);
  }

  async listTools(signal?: AbortSignal): Promise<McpToolInfo[]> {
    const tools: McpToolInfo[] = [];
    let cursor: string | undefined;
    // A server may page its list; 10 pages is far past any toolset a model should be offered.
    for (let page = 0; page < 10; page++) {
      const answer = await this.#client.listTools(cursor ? { cursor } : {}, { timeout: this.#target.timeoutMs, ...(signal ? { signal } : {}) });
      for (const tool of answer.tools) {
        tools.push({ name: tool.name, description: tool.description ?? '', inputSchema: tool.inputSchema as Record<string, unknown> });
      }
      cursor = answer.nextCursor;
      if (!cursor) break;
    }
    return tools;
  }

  /** Calls one of the server's tools; a failure (the server's error, a timeout, a dropped connection) is a result the model reads. */
  async callTool(name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<McpCallResult> {
    const started = performance.now();
    const secrets = Object.values(this.#target.secretHeaders).filter((value) => value.length > 0);
    const redact = (text: string) => secrets.reduce((out, secret) => out.split(secret).join(REDACTED), text);
    const done = (output: string, isError: boolean): McpCallResult => ({
      output: cut(redact(output)),
      is_error: isError,
      duration_ms: Math.round(performance.now() - started),
    });
    try {
      const answer = await this.#client.callTool({ name, arguments: args }, undefined, { timeout: this.#target.timeoutMs, ...(signal ? { signal } : {}) });
      const content = Array.isArray(answer.content) ? (answer.content as { type: string; text?: string }[]) : [];
      const text = content
        .filter((part) => part.type === 'text' && typeof part.text === 'string')
        .map((part) => part.text)
        .join('\n');
      const output = text || (answer.structuredContent ? JSON.stringify(answer.structuredContent) : 'The tool answered nothing.');
      return done(answer.isError ? `The tool failed: ${output}` : output, answer.isError === true);
    } catch (error) {
      return done(`The tool could not be called: ${describeError(error)}`, true);
    }
  }

  async close(): Promise<void> {
    await this.#client.close().catch(() => {});
  }
}

/** The server's tools, for the team choosing among them: connects, lists, closes. */
export async function listMcpServerTools(
  target: McpTarget,
  options: { allowPrivateTargets: boolean },
): Promise<{ tools: McpToolInfo[]; duration_ms: number; error: string | null }> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  let connection: McpConnection | undefined;
  try {
    connection = await McpConnection.open(target, options);
    return { tools: await connection.listTools(), duration_ms: elapsed(), error: null };
  } catch (error) {
    // A server may echo what it was sent: its credentials never come back in the error.
    const secrets = Object.values(target.secretHeaders).filter((value) => value.length > 0);
    const message = secrets.reduce((out, secret) => out.split(secret).join(REDACTED), error instanceof Error ? error.message : String(error));
    return { tools: [], duration_ms: elapsed(), error: message };
  } finally {
    await connection?.close();
  }
}
