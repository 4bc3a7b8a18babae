import { describe, expect, it } from 'vitest';
import { scrubberOf, scrubJson, valuesOf } from '../../modules/contacts/personal-details.js';

describe('finding a contact’s details in text', () => {
  it('finds a number in its international, national and digit-only spellings, and nothing longer that contains it', () => {
    const scrub = scrubberOf({ texts: [], phones: ['+442079460018'] }, 'US');
    expect(scrub('Ring 020 7946 0018, +44 20 7946 0018, 0044 20 7946 0018, +442079460018 or 2079460018.')).toBe(
      'Ring [removed], [removed], [removed], [removed] or [removed].',
    );
    expect(scrub('Order 120794600189 and +14155550100 stay.')).toBe('Order 120794600189 and +14155550100 stay.');
  });

  it('reads a national number among the values in the organisation’s region', () => {
    const scrub = scrubberOf({ texts: ['(415) 555-0166'], phones: [] }, 'US');
    expect(scrub('Call +1 415-555-0166 or 415.555.0166')).toBe('Call [removed] or [removed]');
  });

  it('removes the longest value whole, ignores case, keeps words that contain a value, and leaves values under three characters', () => {
    const scrub = scrubberOf({ texts: ['Al', 'Carol', 'Carol Smith', 'x'], phones: [] }, 'US');
    expect(scrub('CAROL SMITH and carol met Al at Carolina; x marks it.')).toBe('[removed] and [removed] met Al at Carolina; x marks it.');
  });

  it('matches a value as the template renderer inserted it', () => {
    // Rendering drops quotes and markup characters and collapses whitespace.
    const scrub = scrubberOf({ texts: ['Ada "the\n  Countess"'], phones: [] }, 'US');
    expect(scrub('Welcome, Ada the Countess!')).toBe('Welcome, [removed]!');
  });

  it('walks JSON values, keeping keys, booleans and numbers that are not values', () => {
    const scrub = scrubberOf({ texts: valuesOf({ street: '12 Baker Street', vip: true, visits: 1985, tags: ['gold member'] }), phones: [] }, 'US');
    expect(scrubJson({ street: 'at 12 baker street', vip: true, count: 3, when: 'born 1985', tags: ['Gold Member'] }, scrub)).toEqual({
      street: 'at [removed]',
      vip: true,
      count: 3,
      when: 'born [removed]',
      tags: ['[removed]'],
    });
  });
});
