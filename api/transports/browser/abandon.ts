import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { PrismaClient } from '../../../prisma/client.js';
import { abandonUnjoinedCall } from '../../../modules/calls/index.js';
import type { StreamTokens } from '../../../lib/stream-token.js';
import { AppError } from '../../../lib/errors.js';

// The call page gives its call up before joining it: the microphone was refused, or the page (a widget's panel) was
// closed while it asked. Sent with navigator.sendBeacon, so it still leaves a page being closed: a POST with the call's
// token in the URL, as the audio socket takes it, and no body. Without it, the call would wait for the unstarted-call
// sweep, holding one of its widget's slots and its organisation's meanwhile.

const Params = z.object({ call_sid: z.string().regex(/^[A-Za-z0-9]{1,64}$/) });
const Query = z.object({ token: z.string().max(1024).optional() });

export function registerCallAbandon(app: FastifyInstance, options: { prisma: PrismaClient; tokens: StreamTokens }): void {
  app.post('/call/:call_sid/abandon', { schema: { hide: true, params: Params, querystring: Query }, config: { auth: 'public' } }, async (request, reply) => {
    const { call_sid } = request.params as z.infer<typeof Params>;
    const { token } = request.query as z.infer<typeof Query>;
    if (!token || options.tokens.verify(token) !== call_sid) throw new AppError('call_token_invalid', 'This link is expired or belongs to another call');
    // A call that started or ended meanwhile is left as it is: the answer is the same, there is nothing to tell.
    await abandonUnjoinedCall(options.prisma, call_sid);
    return reply.status(204).send();
  });
}
