import { sleep, startHttpServer, type FakeServer, type RecordedRequest } from '../http-server.js';
import { answerEmbeddings, type FakeEmbeddingsOptions } from './openai-embeddings.js';

// OpenAI's Chat Completions API as its SDK speaks it: POST /chat/completions with `stream: true` answered by
// server-sent events of `chat.completion.chunk` objects and a final `data: [DONE]`; errors as a JSON `error` object
// with the HTTP status. Groq, Mistral's compatible endpoint, Ollama and other `custom` servers speak the same. The same
// server answers POST /embeddings (openai-embeddings.ts), as OpenAI's does under one base URL.

export type OpenAIReply =
  | { text: string; delayMs?: number; chunkDelayMs?: number }
  | { status: number; message?: string; type?: string }
  /** Sends the first chunk then drops the connection. */
  | { dropAfterFirstChunk: string }
  /** Calls tools: each call's arguments streamed in two pieces, as the API splits them, then finish_reason tool_calls. */
  | { toolCalls: Array<{ name: string; arguments: string }> };

export interface FakeOpenAI extends FakeServer {
  /** Chat-completion request bodies, in order. */
  chats(): Array<Record<string, unknown>>;
  /** Embeddings request bodies, in order. */
  embeddings(): Array<Record<string, unknown>>;
}

export async function startFakeOpenAI(
  reply: (body: Record<string, unknown>, index: number) => OpenAIReply = () => ({ text: 'Hello.' }),
  embeddings: FakeEmbeddingsOptions = {},
): Promise<FakeOpenAI> {
  let index = 0;
  let embeddingIndex = 0;
  const server = await startHttpServer(async (req: RecordedRequest, res) => {
    if (req.method === 'POST' && req.path.endsWith('/embeddings')) return answerEmbeddings(req, res, embeddingIndex++, embeddings);
    if (req.method !== 'POST' || !req.path.endsWith('/chat/completions')) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'not found', type: 'invalid_request_error' } }));
      return;
    }
    const body = (req.json ?? {}) as Record<string, unknown>;
    const r = reply(body, index++);
    if ('status' in r) {
      res.writeHead(r.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: r.message ?? 'upstream failure', type: r.type ?? 'server_error', code: null } }));
      return;
    }
    const id = `chatcmpl-${index}`;
    const model = String(body.model ?? 'fake');
    const chunk = (delta: Record<string, unknown>, finish: string | null) =>
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    if ('dropAfterFirstChunk' in r) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(chunk({ role: 'assistant', content: r.dropAfterFirstChunk }, null));
      res.socket?.destroy();
      return;
    }
    if ('toolCalls' in r) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.write(chunk({ role: 'assistant', content: null }, null));
      r.toolCalls.forEach((call, i) => {
        const half = Math.floor(call.arguments.length / 2);
        res.write(
          chunk(
            { tool_calls: [{ index: i, id: `call_${index}_${i}`, type: 'function', function: { name: call.name, arguments: call.arguments.slice(0, half) } }] },
            null,
          ),
        );
        res.write(chunk({ tool_calls: [{ index: i, function: { arguments: call.arguments.slice(half) } }] }, null));
      });
      res.write(chunk({}, 'tool_calls'));
      res.end('data: [DONE]\n\n');
      return;
    }
    if (r.delayMs) await sleep(r.delayMs);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const words = r.text.split(/(?<= )/);
    res.write(chunk({ role: 'assistant', content: '' }, null));
    for (const word of words) {
      res.write(chunk({ content: word }, null));
      if (r.chunkDelayMs) await sleep(r.chunkDelayMs);
    }
    res.write(chunk({}, 'stop'));
    const usage = { prompt_tokens: 10, completion_tokens: words.length, total_tokens: 10 + words.length };
    res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model, choices: [], usage })}\n\n`);
    res.end('data: [DONE]\n\n');
  });
  return {
    ...server,
    chats: () => server.requests.filter((r) => r.path.endsWith('/chat/completions')).map((r) => (r.json ?? {}) as Record<string, unknown>),
    embeddings: () => server.requests.filter((r) => r.path.endsWith('/embeddings')).map((r) => (r.json ?? {}) as Record<string, unknown>),
  };
}
