import type { AssertionIn, RepetitionOut } from './schemas.js';
import { matchesPattern } from './patterns.js';

// The assertions of a test run, judged over one repetition's conversation. Every assertion but `judge` is decided
// here from what was recorded; a `judge` is a question a model answers, asked through `ask`.

export type Conversation = Pick<RepetitionOut, 'transcript' | 'tool_calls' | 'collected'> & { userTurns: number };
export type AssertionResult = RepetitionOut['assertions'][number];
export type JudgeAnswer = { passed: boolean; reason: string };

/** Whether `actual` holds `expected`: objects key by key (recursively), arrays and other values by equality. */
export function includesSubset(actual: unknown, expected: unknown): boolean {
  if (expected !== null && typeof expected === 'object' && !Array.isArray(expected)) {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return false;
    return Object.entries(expected).every(([key, value]) => includesSubset((actual as Record<string, unknown>)[key], value));
  }
  return JSON.stringify(actual) === JSON.stringify(expected);
}

function replies(conversation: Conversation, turn: number | null): string[] {
  return conversation.transcript.filter((t) => t.role === 'assistant' && (turn === null || t.turn === turn)).map((t) => t.text);
}

const where = (turn: number | null) => (turn === null ? 'any reply' : `the reply to user turn ${turn}`);
const quote = (text: string) => JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text);

/** Equal as values; text compared without case or surrounding space, and a number equal to its text. */
function sameValue(actual: unknown, expected: unknown): boolean {
  const text = (v: unknown) => (typeof v === 'string' ? v.trim().toLowerCase() : typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined);
  const a = text(actual);
  const e = text(expected);
  if (a !== undefined && e !== undefined) return a === e;
  return JSON.stringify(actual) === JSON.stringify(expected);
}

/**
 * A collected value by its name, in whichever playbook collected it, or as `playbook.value`. Collected values are kept
 * by playbook name, then value name (modules/playbooks/collect.ts).
 */
export function collectedValue(collected: Record<string, unknown>, name: string): { value: unknown } | undefined {
  for (const [playbook, entry] of Object.entries(collected)) {
    const values = (entry as { values?: Record<string, unknown> } | null)?.values ?? {};
    if (Object.hasOwn(values, name)) return { value: values[name] };
    const own = name.startsWith(`${playbook}.`) ? name.slice(playbook.length + 1) : undefined;
    if (own !== undefined && Object.hasOwn(values, own)) return { value: values[own] };
  }
  return undefined;
}

export function judgeOne(assertion: Exclude<AssertionIn, { type: 'judge' }>, conversation: Conversation): JudgeAnswer {
  switch (assertion.type) {
    case 'tool_called':
    case 'tool_not_called': {
      const calls = conversation.tool_calls.filter((c) => c.name === assertion.name && (assertion.turn === null || c.turn === assertion.turn));
      const matching = assertion.arguments === null ? calls : calls.filter((c) => includesSubset(c.arguments, assertion.arguments));
      const what = `${assertion.name}${assertion.arguments === null ? '' : ` with ${JSON.stringify(assertion.arguments)}`}`;
      const scope = assertion.turn === null ? '' : ` on user turn ${assertion.turn}`;
      if (assertion.type === 'tool_called') {
        if (matching.length > 0) return { passed: true, reason: `${what} was called ${matching.length} time(s)${scope}` };
        return {
          passed: false,
          reason:
            calls.length > 0
              ? `${assertion.name} was called${scope}, never with ${JSON.stringify(assertion.arguments)}`
              : `${assertion.name} was not called${scope}`,
        };
      }
      return matching.length === 0
        ? { passed: true, reason: `${what} was not called${scope}` }
        : { passed: false, reason: `${what} was called ${matching.length} time(s)${scope}` };
    }
    case 'reply_contains': {
      const texts = replies(conversation, assertion.turn);
      const needle = assertion.case_sensitive ? assertion.text : assertion.text.toLowerCase();
      const found = texts.find((t) => (assertion.case_sensitive ? t : t.toLowerCase()).includes(needle));
      if (found !== undefined) return { passed: true, reason: `${where(assertion.turn)} contains it: ${quote(found)}` };
      return {
        passed: false,
        reason: texts.length === 0 ? `no reply in ${where(assertion.turn)}` : `${where(assertion.turn)} does not contain ${quote(assertion.text)}`,
      };
    }
    case 'reply_matches': {
      const texts = replies(conversation, assertion.turn);
      const found = texts.find((t) => matchesPattern(assertion.pattern, t, assertion.case_sensitive));
      if (found !== undefined) return { passed: true, reason: `${where(assertion.turn)} matches: ${quote(found)}` };
      return {
        passed: false,
        reason: texts.length === 0 ? `no reply in ${where(assertion.turn)}` : `no reply in ${where(assertion.turn)} matches /${assertion.pattern}/`,
      };
    }
    case 'value_collected': {
      const found = collectedValue(conversation.collected, assertion.name);
      if (!found) return { passed: false, reason: `${assertion.name} was not collected` };
      const { value } = found;
      if (assertion.expected === undefined) return { passed: true, reason: `${assertion.name} was collected: ${JSON.stringify(value)}` };
      return sameValue(value, assertion.expected)
        ? { passed: true, reason: `${assertion.name} is ${JSON.stringify(value)}` }
        : { passed: false, reason: `${assertion.name} is ${JSON.stringify(value)}, expected ${JSON.stringify(assertion.expected)}` };
    }
    case 'turn_count': {
      const n = conversation.userTurns;
      const low = assertion.min === null || n >= assertion.min;
      const high = assertion.max === null || n <= assertion.max;
      const bounds = [assertion.min !== null ? `at least ${assertion.min}` : null, assertion.max !== null ? `at most ${assertion.max}` : null]
        .filter(Boolean)
        .join(' and ');
      return { passed: low && high, reason: `${n} user turn(s); expected ${bounds}` };
    }
  }
}

/** Every assertion judged over the conversation, in the order given; judge questions are asked one at a time. */
export async function judgeAll(
  assertions: AssertionIn[],
  conversation: Conversation,
  ask: (question: string) => Promise<JudgeAnswer>,
): Promise<AssertionResult[]> {
  const results: AssertionResult[] = [];
  for (const [index, assertion] of assertions.entries()) {
    let answer: JudgeAnswer;
    if (assertion.type === 'judge') {
      answer = await ask(assertion.question).catch((error: unknown) => ({
        passed: false,
        reason: `the judge could not answer: ${error instanceof Error ? error.message : String(error)}`,
      }));
    } else {
      answer = judgeOne(assertion, conversation);
    }
    results.push({ index, type: assertion.type, ...answer });
  }
  return results;
}
