import { describe, expect, it } from 'vitest';
import { describeWeek } from './week-summary.js';

const r = (start: string, end: string) => ({ start, end });
const workweek = (start: string, end: string) => Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri'].map((d) => [d, [r(start, end)]]));

describe('a week of calling hours in words', () => {
  it('says a working week as one span with its zone', () => {
    expect(describeWeek(workweek('09:00', '17:00'), 'Europe/Paris', false)).toBe('Mon-Fri 09:00-17:00, Europe/Paris');
  });

  it('says each contact’s own zone first when the windows are read in it', () => {
    expect(describeWeek(workweek('09:00', '17:00'), 'Europe/Paris', true)).toBe(
      'Mon-Fri 09:00-17:00, in each contact’s own time zone (Europe/Paris when it is not known)',
    );
  });

  it('groups days by their hours, lists days apart one by one, and gives a day’s ranges earliest first', () => {
    const week = {
      mon: [r('13:00', '17:00'), r('09:00', '12:00')],
      wed: [r('09:00', '12:00'), r('13:00', '17:00')],
      sat: [r('10:00', '14:00')],
      sun: [r('10:00', '14:00')],
    };
    expect(describeWeek(week, 'UTC', false)).toBe('Mon, Wed 09:00-12:00 and 13:00-17:00; Sat, Sun 10:00-14:00, UTC');
  });

  it('reads an end of 00:00 as midnight, and leaves out a range the API would refuse', () => {
    const week = { fri: [r('18:00', '00:00'), r('12:00', '11:00'), r('', '10:00')] };
    expect(describeWeek(week, 'UTC', false)).toBe('Fri 18:00-24:00, UTC');
  });

  it('says when there are no hours at all', () => {
    expect(describeWeek({}, 'UTC', false)).toMatch(/^No calling hours/);
  });
});
