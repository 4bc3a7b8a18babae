import { html, type Html } from '../../html.js';
import { aria, errorLine, idOf, type Marks, section, switchRow } from './controls.js';
import type { FormValues } from './form-fields.js';
import { DAYS } from './schema-facts.js';
import { isListed, zoneGroups } from './time-zones.js';
import { dayName, describeWeek, type Range } from './week-summary.js';

// "When to call": the campaign's time zone picked from a list, a week of calling hours (a row a day, any number of
// ranges in it), the first and last call, and the week said back in words. The hours post as `window_<day>_start[]`
// and `window_<day>_end[]`, one pair a range; without the page's script each day also has a spare pair for another
// range and a range is removed by clearing it, with the script (assets/campaign-form.js) ranges are added and removed
// by buttons, Monday's hours copy to the other weekdays, and the sentence follows every change.

/** The key a range's refusal is filed under (form-fields' windowRows name them). */
export const rangeKey = (day: string, index: number): string => `window.${day}.${index}`;

function rangeRow(day: string, index: number, range: Range, marks: Marks, spare = false): Html {
  const name = dayName(day);
  const nth = index === 0 ? '' : `, range ${index + 1}`;
  const id = `w-${day}-${index}`;
  const error = spare ? undefined : marks.at(rangeKey(day, index));
  const described = aria(id, false, error);
  return html`<div class="range"${spare ? html` data-spare` : ''} data-range><input type="time" name="window_${day}_start[]" value="${range.start}" aria-label="${name} from${nth}"${described}><span class="to" aria-hidden="true">to</span><input type="time" name="window_${day}_end[]" value="${range.end}" aria-label="${name} until${nth}"${described}><button type="button" class="secondary remove-range" data-remove-range hidden aria-label="Remove ${name}’s range${nth}" title="Remove this range">×</button>${errorLine(id, error)}</div>`;
}

function dayRow(day: string, ranges: Range[], marks: Marks): Html {
  const name = dayName(day);
  return html`<div class="day" data-day="${day}" data-day-name="${name}"><div class="day-name">${name}</div>
<div class="ranges" data-ranges>${ranges.map((r, i) => rangeRow(day, i, r, marks))}${rangeRow(day, ranges.length, { start: '', end: '' }, marks, true)}<span class="muted closed" data-closed hidden>Not called</span></div>
<div class="day-actions"><button type="button" class="secondary" data-add-range hidden>Add hours</button>${day === DAYS[0] ? html`<button type="button" class="secondary" data-copy-weekdays hidden>Copy to Tue-Fri</button>` : ''}</div></div>`;
}

function zoneSelect(value: string, marks: Marks, browserZone: boolean): Html {
  const key = 'schedule.timezone';
  const id = idOf(key);
  const error = marks.at(key);
  const current = value || 'UTC';
  // A zone the list lacks (a stored link such as US/Eastern, or text the API refused) is offered as it is, so it is kept.
  const unlisted = isListed(current) ? '' : html`<option value="${current}" selected>${current}</option>`;
  return html`<div class="setting"><label for="${id}">Time zone</label><select id="${id}" name="${key}"${browserZone ? html` data-browser-zone` : ''}${aria(id, true, error)}>${unlisted}${zoneGroups().map(
    (g) =>
      html`<optgroup label="${g.region}">${g.zones.map((z) => html`<option value="${z.id}"${z.id === current ? html` selected` : ''}>${z.label}</option>`)}</optgroup>`,
  )}</select><span class="hint" id="${id}-hint">The clock the hours below are read on, daylight saving included.</span>${errorLine(id, error)}</div>`;
}

function instantRow(key: string, label: string, help: string, value: string, marks: Marks): Html {
  const id = idOf(key);
  const error = marks.at(key);
  return html`<div class="setting"><label for="${id}">${label}</label><input id="${id}" name="${key}" type="datetime-local" value="${value}"${aria(id, true, error)}><span class="hint" id="${id}-hint">${help}</span>${errorLine(id, error)}</div>`;
}

export function scheduleSection(values: FormValues, marks: Marks, o: { browserZone: boolean; note?: Html | string }): Html {
  const f = values.fields;
  const zone = f['schedule.timezone'] || 'UTC';
  const contactZones = f['schedule.use_contact_timezone'] !== 'false';
  const weekError = marks.at('schedule.windows');
  const body = html`<div class="settings">${zoneSelect(zone, marks, o.browserZone)}
${switchRow({ key: 'schedule.use_contact_timezone', label: 'Call each contact in their own time zone', value: f['schedule.use_contact_timezone'] ?? '', marks, help: 'The contact’s time zone, else the one of their number’s area; the zone above for contacts where neither is known.' })}</div>
<div class="week" id="${idOf('schedule.windows')}" data-week role="group" aria-labelledby="week-title"${weekError ? html` aria-describedby="${idOf('schedule.windows')}-error"` : ''}>
<h3 id="week-title">Calling hours</h3>
<p class="week-summary" data-week-summary aria-live="polite">${describeWeek(values.week, zone, contactZones)}</p>
${errorLine(idOf('schedule.windows'), weekError)}
<noscript><p class="hint">Leave a day’s times empty not to call that day, clear a range’s two times to remove it, and use a day’s spare row for another range. An end of 00:00 is midnight.</p></noscript>
<p class="hint" data-with-script hidden>An end of 00:00 is midnight.</p>
${DAYS.map((day) => dayRow(day, values.week[day] ?? [], marks))}
</div>
<div class="settings">${instantRow('schedule.start_at', 'No calls before', 'Optional, in the time zone above. Started earlier, the campaign waits until then.', f['schedule.start_at'] ?? '', marks)}
${instantRow('schedule.end_at', 'No calls after', 'Optional, in the time zone above. The campaign then completes; contacts not reached are skipped.', f['schedule.end_at'] ?? '', marks)}</div>`;
  return section({
    id: 'schedule',
    key: 'schedule',
    title: 'When to call',
    intro: html`Calls are placed only inside these hours; a retry waits for the next of them.${o.note ? html` ${o.note}` : ''}`,
    marks,
    body,
  });
}
