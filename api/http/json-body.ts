import type { FastifyInstance } from 'fastify';
import secureJson from 'secure-json-parse';
import { ValidationFailed } from '../../lib/errors.js';

/** 1 MiB: an assistant with a long prompt is ~100 KiB; anything bigger is a mistake or an attack. */
export const BODY_LIMIT_BYTES = 1024 * 1024;
/** No request we accept nests deeper than ~6 levels; 32 leaves room for free-form settings. */
export const MAX_JSON_DEPTH = 32;

function depthExceeds(value: unknown, limit: number): boolean {
  // Iterative, so a hostile document cannot overflow the stack while being measured.
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth > limit) return true;
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return false;
}

function invalidJson(message: string, position?: number): ValidationFailed {
  return new ValidationFailed([{ loc: ['body', position ?? 0], msg: `JSON decode error: ${message}`, type: 'json_invalid' }]);
}

/**
 * Replaces Fastify's JSON parser so that every malformed body is the spec's 422 (`json_invalid`), prototype
 * pollution keys are refused, and deep nesting is bounded, instead of a 400 in Fastify's own shape or a 500.
 */
export function registerJsonBodyParser(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser(/^application\/([\w.+-]+\+)?json(\s*;.*)?$/i, { parseAs: 'string', bodyLimit: BODY_LIMIT_BYTES }, (_request, body, done) => {
    const text = body as string;
    if (text.trim() === '') return done(null, undefined);
    let parsed: unknown;
    try {
      parsed = secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
    } catch (error) {
      const message = error instanceof Error ? error.message : 'invalid JSON';
      if (error instanceof RangeError) return done(invalidJson('document is nested too deeply'), undefined);
      const position = /position (\d+)/.exec(message)?.[1];
      if (/prototype|constructor/i.test(message)) return done(invalidJson('forbidden key in object'), undefined);
      return done(invalidJson(message.replace(/ in JSON at position \d+.*$/, ''), position ? Number(position) : undefined), undefined);
    }
    if (depthExceeds(parsed, MAX_JSON_DEPTH)) {
      return done(invalidJson(`document is nested deeper than ${MAX_JSON_DEPTH} levels`), undefined);
    }
    done(null, parsed);
  });
}
