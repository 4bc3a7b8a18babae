import type { PrismaClient } from '../../prisma/client.js';
import { AppError, ValidationFailed } from '../../lib/errors.js';

/**
 * The assistant a new call is to talk to, in the caller's organisation and active; a 422 at `body.assistant_id` for an
 * id that is missing or not this organisation's (the same answer for both), a 400 for an inactive one.
 */
export async function requireActiveAssistant(prisma: PrismaClient, organizationId: number, assistantId: number): Promise<{ id: number }> {
  const assistant = await prisma.assistant.findFirst({ where: { id: assistantId, organizationId }, select: { id: true, isActive: true } });
  if (!assistant) throw new ValidationFailed([{ loc: ['body', 'assistant_id'], msg: 'No such assistant', type: 'not_found' }]);
  if (assistant.isActive === false) throw new AppError('assistant_inactive', `Assistant ${assistant.id} is not active`);
  return { id: assistant.id };
}
