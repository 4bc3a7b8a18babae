import { describe, expect, it } from 'vitest';
import { ValidationFailed } from '../../../../lib/errors.js';
import { contactRefusal, customFieldsBody, type Property, valuesOfContact, valuesOfPost } from './custom-fields.js';

// A contact's custom fields as the form posts them (`cf.<key>`), the `custom_fields` they mean for the contact
// service, the way back from stored values, and the service's refusals at their controls.

const properties: Property[] = [
  { key: 'company', label: 'Company', type: 'text', options: null },
  { key: 'seats', label: 'Seats', type: 'number', options: null },
  { key: 'renews_on', label: 'Renews on', type: 'date', options: null },
  { key: 'last_demo', label: 'Last demo', type: 'datetime', options: null },
  { key: 'vip', label: 'VIP', type: 'boolean', options: null },
  { key: 'plan', label: 'Plan', type: 'select', options: ['gold', 'silver', 'bronze'] },
];

describe('a contact’s custom fields in the form', () => {
  it('sends each control as typed, a date and time on the contact’s clock, and leaves empty ones out of a new contact', () => {
    const values = valuesOfPost(properties, {
      'cf.company': 'Acme',
      'cf.seats': '12',
      'cf.renews_on': '',
      'cf.last_demo': '2026-03-02T09:30',
      'cf.vip': ['', 'true'],
      'cf.plan': 'silver',
    });
    expect(customFieldsBody(properties, values, { update: false, zone: 'Europe/Paris' })).toEqual({
      company: 'Acme',
      seats: '12',
      last_demo: '2026-03-02T09:30:00+01:00',
      vip: true,
      plan: 'silver',
    });
  });

  it('removes a cleared value from a stored contact, and turns a switch that was set off as “no”', () => {
    const values = valuesOfPost(properties, { 'cf.company': '', 'cf.vip': 'false', 'cf.plan': '' });
    expect(customFieldsBody(properties, values, { update: true, zone: 'UTC' })).toEqual({
      company: null,
      seats: null,
      renews_on: null,
      last_demo: null,
      vip: false,
      plan: null,
    });
    // Never set and left off, a switch stays unset.
    expect(customFieldsBody(properties, valuesOfPost(properties, { 'cf.vip': '' }), { update: true, zone: 'UTC' })).not.toHaveProperty('vip');
  });

  it('fills the controls from stored values, a date and time shown on the contact’s clock', () => {
    expect(
      valuesOfContact(properties, { company: 'Acme', seats: 12, last_demo: '2026-03-02T08:30:00.000Z', vip: false, plan: 'gold' }, 'Europe/Paris'),
    ).toEqual({ company: 'Acme', seats: '12', renews_on: '', last_demo: '2026-03-02T09:30', vip: 'false', plan: 'gold' });
  });

  it('places the service’s refusals at each property’s control in plain words', () => {
    const error = new ValidationFailed([
      { loc: ['body', 'custom_fields', 'seats'], msg: 'Input should be a valid number', type: 'float_parsing' },
      { loc: ['body', 'custom_fields', 'plan'], msg: "Input should be 'gold', 'silver' or 'bronze'", type: 'enum' },
      { loc: ['body', 'custom_fields', 'gone'], msg: 'No custom property has this key', type: 'extra_forbidden' },
      { loc: ['body', 'email'], msg: 'value is not a valid email address', type: 'value_error' },
    ]);
    expect(contactRefusal(error, properties)).toEqual({
      'cf.seats': 'Give a number, such as 42 or 3.5.',
      'cf.plan': 'Pick one of the choices.',
      'cf.gone': 'This organisation has no custom property of this name.',
      email: 'Use an email address, like name@example.com.',
    });
  });
});
