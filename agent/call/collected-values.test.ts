import { describe, expect, it } from 'vitest';
import { CollectedValues } from './collected-values.js';

describe('collected values', () => {
  const declared = () => {
    const values = new CollectedValues();
    values.declare('Booking', [
      { name: 'day', type: 'date', description: '', required: true, values: null },
      { name: 'vip', type: 'boolean', description: '', required: false, values: null },
    ]);
    values.declare('Nothing to collect', []);
    return values;
  };

  it('saves values in their declared types, skips nulls, and refuses names the playbook does not collect', () => {
    const values = declared();
    expect(values.save('Booking', { vip: 'yes', day: null, colour: 'red' })).toEqual({
      saved: ['vip'],
      refused: [{ name: 'colour', reason: 'is not a value this playbook collects' }],
    });
    expect(values.values('Booking')).toEqual({ vip: true });
    expect(values.missing('Booking')).toEqual(['day']);
  });

  it('keeps the last good value when a later one is refused', () => {
    const values = declared();
    values.save('Booking', { day: '2026-12-04' });
    expect(values.save('Booking', { day: 'tomorrow' }).refused).toHaveLength(1);
    expect(values.record()).toEqual({ Booking: { values: { day: '2026-12-04' }, missing: [] } });
  });

  it('records only playbooks that collect and were used, by name', () => {
    const values = declared();
    expect(values.record()).toBeNull();
    values.entered('Nothing to collect');
    expect(values.record()).toBeNull();
    values.entered('Booking');
    expect(values.record()).toEqual({ Booking: { values: {}, missing: ['day'] } });
  });
});
