import type { z } from 'zod';
import { INT_MESSAGE } from './int.js';
import type { ValidationDetail } from '../errors.js';

// Zod issues rendered the way the spec's validation errors read (FastAPI/pydantic style): `type` is a stable machine
// word such as `missing`, `int_parsing` or `less_than_equal`, `msg` a sentence for people.

type Issue = z.core.$ZodIssue;

function quoted(values: readonly unknown[]): string {
  const parts = values.map((v) => `'${String(v)}'`);
  return parts.length <= 1 ? parts.join('') : `${parts.slice(0, -1).join(', ')} or ${parts.at(-1)}`;
}

const TYPE_NAMES: Record<string, [type: string, msg: string]> = {
  string: ['string_type', 'Input should be a valid string'],
  number: ['float_type', 'Input should be a valid number'],
  int: ['int_type', 'Input should be a valid integer'],
  boolean: ['bool_type', 'Input should be a valid boolean'],
  object: ['dict_type', 'Input should be a valid dictionary or object'],
  record: ['dict_type', 'Input should be a valid dictionary or object'],
  array: ['list_type', 'Input should be a valid list'],
  null: ['none_required', 'Input should be None'],
};

function describe(issue: Issue, input: unknown, fromText: boolean): Omit<ValidationDetail, 'loc'>[] {
  if (input === undefined && (issue.code === 'invalid_type' || issue.code === 'invalid_value' || issue.code === 'invalid_union')) {
    return [{ type: 'missing', msg: 'Field required' }];
  }
  switch (issue.code) {
    case 'invalid_type': {
      // zod reports integers as "number"; the shared int() helper marks them through its message.
      const expected = issue.expected === 'number' && issue.message === INT_MESSAGE ? 'int' : (issue.expected as string);
      if (fromText && (expected === 'number' || expected === 'int')) {
        return [
          expected === 'int'
            ? { type: 'int_parsing', msg: 'Input should be a valid integer, unable to parse string as an integer' }
            : { type: 'float_parsing', msg: 'Input should be a valid number, unable to parse string as a number' },
        ];
      }
      const [type, msg] = TYPE_NAMES[expected] ?? [`${expected}_type`, `Input should be a valid ${expected}`];
      return [{ type, msg }];
    }
    case 'too_small': {
      const min = String(issue.minimum);
      if (issue.origin === 'string') {
        return [{ type: 'string_too_short', msg: `String should have at least ${min} character${min === '1' ? '' : 's'}` }];
      }
      if (issue.origin === 'array' || issue.origin === 'set') {
        return [{ type: 'too_short', msg: `List should have at least ${min} item${min === '1' ? '' : 's'}` }];
      }
      return issue.inclusive
        ? [{ type: 'greater_than_equal', msg: `Input should be greater than or equal to ${min}` }]
        : [{ type: 'greater_than', msg: `Input should be greater than ${min}` }];
    }
    case 'too_big': {
      const max = String(issue.maximum);
      if (issue.origin === 'string') {
        return [{ type: 'string_too_long', msg: `String should have at most ${max} character${max === '1' ? '' : 's'}` }];
      }
      if (issue.origin === 'array' || issue.origin === 'set') {
        return [{ type: 'too_long', msg: `List should have at most ${max} item${max === '1' ? '' : 's'}` }];
      }
      if (issue.origin === 'int' && Number(max) === Number.MAX_SAFE_INTEGER) {
        return [{ type: 'int_too_large', msg: 'Input integer is too large' }];
      }
      return issue.inclusive
        ? [{ type: 'less_than_equal', msg: `Input should be less than or equal to ${max}` }]
        : [{ type: 'less_than', msg: `Input should be less than ${max}` }];
    }
    case 'invalid_value':
      return [{ type: issue.values.length === 1 ? 'literal_error' : 'enum', msg: `Input should be ${quoted(issue.values)}` }];
    case 'unrecognized_keys':
      return issue.keys.map(() => ({ type: 'extra_forbidden', msg: 'Extra inputs are not permitted' }));
    case 'invalid_format':
      if (issue.format === 'url') return [{ type: 'url_parsing', msg: 'Input should be a valid URL' }];
      if (issue.format === 'email') return [{ type: 'value_error', msg: 'value is not a valid email address' }];
      // A pattern the schema explains in its own words ("AC followed by 32 hex digits") says so; zod's default
      // ("Invalid string: must match pattern /…/") would show a regular expression to a person.
      if (issue.format === 'regex' && !issue.message.startsWith('Invalid string')) return [{ type: 'string_pattern_mismatch', msg: issue.message }];
      return [{ type: 'string_pattern_mismatch', msg: `Input should be a valid ${issue.format}` }];
    case 'not_multiple_of':
      return [{ type: 'multiple_of', msg: `Input should be a multiple of ${String(issue.divisor)}` }];
    case 'invalid_union':
      return [{ type: 'union_type', msg: 'Input does not match any allowed form' }];
    case 'invalid_key':
      return [{ type: 'invalid_key', msg: 'Keys should be valid strings' }];
    case 'invalid_element':
      return [{ type: 'value_error', msg: 'Invalid element' }];
    case 'custom': {
      const type = (issue.params as { type?: string } | undefined)?.type ?? 'value_error';
      return [{ type, msg: issue.message }];
    }
    default:
      return [{ type: 'value_error', msg: (issue as { message: string }).message }];
  }
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let current = root;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

/**
 * Turns zod issues into the spec's `detail[]`. `location` is the request part (`body`, `path`, `query`, `header`);
 * `fromText` says the values arrived as text (path and query), where a bad number is a parsing error.
 */
export function zodIssuesToDetail(issues: readonly Issue[], location: string, input: unknown, fromText = location !== 'body'): ValidationDetail[] {
  const detail: ValidationDetail[] = [];
  for (const issue of issues) {
    const path = issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p));
    const described = describe(issue, valueAt(input, issue.path), fromText);
    if (issue.code === 'unrecognized_keys') {
      issue.keys.forEach((key, i) => detail.push({ loc: [location, ...path, key], msg: described[i]!.msg, type: described[i]!.type }));
    } else {
      for (const d of described) detail.push({ loc: [location, ...path], msg: d.msg, type: d.type });
    }
  }
  return detail;
}
