import { ValidationFailed } from '../../../../lib/errors.js';
import type { PrismaClient } from '../../../../prisma/client.js';
import { listPhoneNumbers, updatePhoneNumber } from '../../../../modules/telephony/index.js';
import { PHONE_NUMBERS_FIELD } from './sections.js';

// The numbers an assistant answers, as the builder edits them: not one of its settings but each number's own
// `assistant_id`, changed through the numbers' module as `PATCH /api/phone-numbers/{id}` changes it.

/** The most numbers an organisation lists at once in the builder. */
const MOST = 200;

/** The ids ticked in the builder's form; undefined when the form did not carry the picker (it changes nothing then). */
export function tickedNumbers(form: Record<string, unknown>): number[] | undefined {
  const raw = form[PHONE_NUMBERS_FIELD];
  if (raw === undefined) return undefined;
  const values = (Array.isArray(raw) ? raw : [raw]).filter((v): v is string => typeof v === 'string' && v !== '');
  return [...new Set(values.map((v) => (/^\d{1,9}$/.test(v) ? Number(v) : NaN)))];
}

/** Refuses, before anything is saved, a ticked number that is not one of the organisation's (or not a number id). */
export async function checkTickedNumbers(prisma: PrismaClient, organizationId: number, ticked: number[] | undefined): Promise<void> {
  if (!ticked || ticked.length === 0) return;
  const own = new Set((await listPhoneNumbers(prisma, organizationId, 1, MOST)).data.map((n) => n.id));
  if (ticked.some((id) => !own.has(id))) {
    throw new ValidationFailed([{ loc: ['body', PHONE_NUMBERS_FIELD], msg: 'Not one of this organisation’s numbers: untick it.', type: 'not_found' }]);
  }
}

/** Makes the assistant answer exactly the ticked numbers: ticked ones move to it, the others it answered answer nobody. */
export async function answerTickedNumbers(prisma: PrismaClient, organizationId: number, assistantId: number, ticked: number[]): Promise<void> {
  const numbers = (await listPhoneNumbers(prisma, organizationId, 1, MOST)).data;
  const wanted = new Set(ticked);
  await prisma.$transaction(async (tx) => {
    for (const n of numbers) {
      if (wanted.has(n.id) && n.assistant_id !== assistantId) await updatePhoneNumber(tx, organizationId, n.id, { assistant_id: assistantId });
      if (!wanted.has(n.id) && n.assistant_id === assistantId) await updatePhoneNumber(tx, organizationId, n.id, { assistant_id: null });
    }
  });
}
