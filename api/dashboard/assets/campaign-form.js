// The campaign form's enhancements (api/dashboard/pages/campaign-form/): ranges of hours and variables added and
// removed by buttons instead of spare rows, Monday's hours copied to the other weekdays, the week said back in words as
// it is edited, and a new campaign's time zone set to this browser's. The form posts the same fields without them.

const SHORT = { mon: 'Mon', tue: 'Tue', wed: 'Wed', thu: 'Thu', fri: 'Fri', sat: 'Sat', sun: 'Sun' };
const CLOCK = /^(([01]\d|2[0-3]):[0-5]\d|24:00)$/;
const minutes = (hhmm) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3));
const storedEnd = (end) => (end === '00:00' ? '24:00' : end);

// The same words as week-summary.ts: days with the same hours share a phrase, three or more in a row are a span.
function validRanges(ranges) {
  const ok = ranges
    .map((r) => ({ start: r.start.trim(), end: storedEnd(r.end.trim()) }))
    .filter((r) => CLOCK.test(r.start) && CLOCK.test(r.end) && minutes(r.end) > minutes(r.start))
    .sort((a, b) => minutes(a.start) - minutes(b.start) || minutes(a.end) - minutes(b.end))
    .map((r) => `${r.start}-${r.end}`);
  return [...new Set(ok)];
}

function daysInWords(days, order) {
  const runs = [];
  for (const i of days.map((d) => order.indexOf(d))) {
    const run = runs.at(-1);
    if (run && run.at(-1) + 1 === i) run.push(i);
    else runs.push([i]);
  }
  return runs.map((run) => (run.length >= 3 ? `${SHORT[order[run[0]]]}-${SHORT[order[run.at(-1)]]}` : run.map((i) => SHORT[order[i]]).join(', '))).join(', ');
}

function describeWeek(week, order, zone, contactZones) {
  const byHours = new Map();
  for (const day of order) {
    const hours = validRanges(week[day] ?? []).join(' and ');
    if (hours) byHours.set(hours, [...(byHours.get(hours) ?? []), day]);
  }
  const text = [...byHours].map(([hours, days]) => `${daysInWords(days, order)} ${hours}`).join('; ');
  if (!text) return 'No calling hours yet: give at least one day a range.';
  return contactZones ? `${text}, in each contact’s own time zone (${zone} when it is not known)` : `${text}, ${zone}`;
}

function button(text, className, data) {
  const b = document.createElement('button');
  b.type = 'button';
  b.className = `secondary ${className}`;
  b.textContent = text;
  b.dataset[data] = '';
  return b;
}

function textInput(type, name, value, label) {
  const input = document.createElement('input');
  input.type = type;
  input.name = name;
  input.value = value;
  input.setAttribute('aria-label', label);
  return input;
}

const form = document.querySelector('form[data-campaign-form]');
if (form) {
  const week = form.querySelector('[data-week]');
  const summary = form.querySelector('[data-week-summary]');
  const zone = form.querySelector('select[name="schedule.timezone"]');
  const contactZones = form.querySelector('input[type=checkbox][name="schedule.use_contact_timezone"]');
  const dayRows = [...week.querySelectorAll('[data-day]')];
  const order = dayRows.map((d) => d.dataset.day);

  const readWeek = () =>
    Object.fromEntries(
      dayRows.map((d) => [
        d.dataset.day,
        [...d.querySelectorAll('[data-range]')].map((r) => ({ start: r.querySelectorAll('input')[0].value, end: r.querySelectorAll('input')[1].value })),
      ]),
    );
  const say = () => {
    summary.textContent = describeWeek(readWeek(), order, zone.value, contactZones?.checked ?? true);
  };

  // Labels say which day and which of its ranges, so each control is named however many there are.
  const relabel = (day) => {
    const name = day.dataset.dayName;
    const ranges = [...day.querySelectorAll('[data-range]')];
    ranges.forEach((r, i) => {
      const nth = i === 0 ? '' : `, range ${i + 1}`;
      const [start, end] = r.querySelectorAll('input');
      start.setAttribute('aria-label', `${name} from${nth}`);
      end.setAttribute('aria-label', `${name} until${nth}`);
      r.querySelector('[data-remove-range]').setAttribute('aria-label', `Remove ${name}’s range${nth}`);
    });
    day.querySelector('[data-closed]').hidden = ranges.length > 0;
  };

  const addRange = (day, start, end) => {
    const d = day.dataset.day;
    const row = document.createElement('div');
    row.className = 'range';
    row.dataset.range = '';
    const to = document.createElement('span');
    to.className = 'to';
    to.setAttribute('aria-hidden', 'true');
    to.textContent = 'to';
    const remove = button('×', 'remove-range', 'removeRange');
    remove.title = 'Remove this range';
    row.append(textInput('time', `window_${d}_start[]`, start, ''), to, textInput('time', `window_${d}_end[]`, end, ''), remove);
    day.querySelector('[data-ranges]').insertBefore(row, day.querySelector('[data-closed]'));
    relabel(day);
    return row;
  };

  // A new range follows the day's last one by an hour, or is a working day's 09:00 to 17:00.
  const nextRange = (day) => {
    const last = [...day.querySelectorAll('[data-range]')].at(-1)?.querySelectorAll('input')[1].value;
    if (!last || !CLOCK.test(last) || last === '00:00' || minutes(last) >= 23 * 60) return ['09:00', '17:00'];
    const end = minutes(last) + 60;
    return [last, `${String(Math.floor(end / 60)).padStart(2, '0')}:${String(end % 60).padStart(2, '0')}`];
  };

  for (const spare of form.querySelectorAll('[data-spare]')) spare.remove();
  for (const hidden of form.querySelectorAll(
    '[data-add-range], [data-copy-weekdays], [data-remove-range], [data-with-script], [data-add-variable], [data-remove-variable]',
  ))
    hidden.hidden = false;
  for (const day of dayRows) relabel(day);

  week.addEventListener('click', (event) => {
    const target = event.target.closest('button');
    if (!target) return;
    const day = target.closest('[data-day]');
    if (target.matches('[data-add-range]')) {
      const [start, end] = nextRange(day);
      addRange(day, start, end).querySelector('input').focus();
    } else if (target.matches('[data-remove-range]')) {
      target.closest('[data-range]').remove();
      relabel(day);
      day.querySelector('[data-add-range]').focus();
    } else if (target.matches('[data-copy-weekdays]')) {
      const hours = readWeek()[day.dataset.day];
      for (const other of dayRows.slice(1, 5)) {
        for (const r of other.querySelectorAll('[data-range]')) r.remove();
        for (const h of hours) addRange(other, h.start, h.end);
        relabel(other);
      }
    }
    say();
  });

  if (zone.hasAttribute('data-browser-zone')) {
    const mine = Intl.DateTimeFormat().resolvedOptions().timeZone;
    if (mine && [...zone.options].some((o) => o.value === mine)) zone.value = mine;
  }
  form.addEventListener('input', say);
  form.addEventListener('change', say);
  say();

  const variables = form.querySelector('[data-variables]');
  const relabelVariables = () =>
    [...variables.querySelectorAll('[data-variable]')].forEach((row, i) => {
      const [name, value] = row.querySelectorAll('input');
      name.setAttribute('aria-label', `Variable ${i + 1} name`);
      value.setAttribute('aria-label', `Variable ${i + 1} value`);
      row.querySelector('[data-remove-variable]').setAttribute('aria-label', `Remove variable ${i + 1}`);
    });
  form.querySelector('[data-add-variable]')?.addEventListener('click', () => {
    const row = document.createElement('div');
    row.className = 'variable';
    row.dataset.variable = '';
    const name = textInput('text', 'variable_name[]', '', '');
    name.placeholder = 'name';
    name.autocomplete = 'off';
    name.spellcheck = false;
    const value = textInput('text', 'variable_value[]', '', '');
    value.placeholder = 'value';
    row.append(name, value, button('Remove', 'remove', 'removeVariable'));
    variables.append(row);
    relabelVariables();
    name.focus();
  });
  variables?.addEventListener('click', (event) => {
    const remove = event.target.closest('[data-remove-variable]');
    if (!remove) return;
    remove.closest('[data-variable]').remove();
    relabelVariables();
    form.querySelector('[data-add-variable]')?.focus();
  });
}
