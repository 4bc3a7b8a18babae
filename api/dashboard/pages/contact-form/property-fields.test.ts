import { describe, expect, it } from 'vitest';
import { zodIssuesToDetail } from '../../../../lib/zod/detail.js';
import { AppError, ValidationFailed } from '../../../../lib/errors.js';
import { ContactPropertyCreate } from '../../../../modules/contacts/index.js';
import { createBody, propertyRefusal, updateBody, valuesOfPost, valuesOfProperty } from './property-fields.js';

// A custom property's form: a select's choices one a line, what the API's body is made of, and its refusals at the
// choices in the form's words.

function refused(form: Record<string, string>) {
  const values = valuesOfPost(form);
  const body = createBody(values);
  const parsed = ContactPropertyCreate.safeParse(body);
  expect(parsed.success).toBe(false);
  return propertyRefusal(new ValidationFailed(zodIssuesToDetail(parsed.error!.issues, 'body', body)), values);
}

describe('a custom property’s form', () => {
  it('sends a select’s choices one a line, blank lines left out, and none for another type', () => {
    const body = createBody(valuesOfPost({ key: 'plan', label: 'Plan', type: 'select', options: 'gold\r\nsilver\n\n bronze \n' }));
    expect(body).toEqual({ key: 'plan', label: 'Plan', type: 'select', options: ['gold', 'silver', ' bronze '] });
    expect(ContactPropertyCreate.parse(body).options).toEqual(['gold', 'silver', 'bronze']);
    expect(createBody(valuesOfPost({ key: 'seats', label: 'Seats', type: 'number', options: 'left over' }))).not.toHaveProperty('options');
    expect(updateBody(valuesOfPost({ label: 'Plan', options: 'gold\nsilver' }), 'select')).toEqual({ label: 'Plan', options: ['gold', 'silver'] });
    expect(updateBody(valuesOfPost({ label: 'Seats', options: 'x' }), 'number')).toEqual({ label: 'Seats' });
    expect(valuesOfProperty({ key: 'plan', label: 'Plan', type: 'select', options: ['gold', 'silver'] }).options).toBe('gold\nsilver');
  });

  it('asks for the choices of a select, names a choice given twice, and one too long by its text', () => {
    expect(refused({ key: 'plan', label: 'Plan', type: 'select', options: '' })).toEqual({ options: 'Give the choices, one a line.' });
    expect(refused({ key: 'plan', label: 'Plan', type: 'select', options: 'gold\nsilver\ngold' })).toEqual({
      options: 'Each choice only once: gold is there twice.',
    });
    expect(refused({ key: 'plan', label: 'Plan', type: 'select', options: `gold\n${'x'.repeat(101)}` })).toEqual({
      options: `“${'x'.repeat(40)}…”: Use at most 100 characters.`,
    });
  });

  it('says which choices contacts still hold, with how many', () => {
    const error = new AppError('option_in_use', 'Options still held by contacts cannot be removed', { options_in_use: [{ option: 'gold', contacts: 3 }] });
    expect(propertyRefusal(error, valuesOfPost({ options: 'silver' }))).toEqual({
      options: 'Still held by contacts: gold (3 contacts). Change their value first, or keep the choice.',
    });
  });
});
