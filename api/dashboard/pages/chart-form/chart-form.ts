import { METRICS } from '../../../../modules/analytics/index.js';
import type { FieldErrors } from '../../forms.js';
import { html, type Html } from '../../html.js';
import { aria, errorLine, idOf, Marks, refusalNotice } from '../../form-marks.js';
import { isListed, zoneGroups } from '../campaign-form/time-zones.js';
import { boxes, inputRow, selectRow } from './controls.js';
import { type ChartFormValues, CUSTOM } from './form-fields.js';
import {
  AGGREGATION_WORDS,
  aggregationsOf,
  BUCKET_WORDS,
  CHART_TYPE_WORDS,
  DIMENSION_WORDS,
  inWords,
  metricGroups,
  metricLabel,
  metricUnit,
  PRESET_WORDS,
  PRESETS,
} from './labels.js';
import { filtersSection } from './filter-pickers.js';
import type { ChartChoices } from './pickers.js';
import { AGGREGATIONS_ALL, CHART_TYPES, DEFAULTS, DIMENSIONS, LIMIT, MOST_GROUPS, TIME_BUCKETS } from './schema-facts.js';

// The saved chart's form, a card per question: what it shows, over which period, grouped how, and which calls it
// counts. Every setting of the API has a control here, each in people's words with its unit and default beside it; the
// values posted are the API's own (form-fields.ts turns them into its body).

export interface ChartFormOptions {
  values: ChartFormValues;
  errors: FieldErrors;
  choices: ChartChoices;
  action: string;
  submit: string;
  cancel: string;
  csrf: Html;
}

/** Which aggregations the measure chosen takes, in words (the page's script says it again as the measure changes). */
function takesInWords(metric: string): string {
  const takes = aggregationsOf(metric).map((a) => inWords(a, AGGREGATION_WORDS));
  if (takes.length === 0) return 'Each measure takes some of these only.';
  if (takes.length === 1) return `${metricLabel(metric)} is shown as ${takes[0]} only.`;
  return `${metricLabel(metric)} is shown as ${takes.join(', ')}; its usual is ${takes[0]}.`;
}

function section(id: string, title: string, intro: Html | string, body: Html): Html {
  return html`<fieldset class="card chart-section" id="${id}"><legend>${title}</legend><p class="muted intro">${intro}</p>${body}</fieldset>`;
}

function whatSection(values: ChartFormValues, marks: Marks, errors: FieldErrors): Html {
  const f = values.fields;
  const needsField = (m: string) => (METRICS as Record<string, { needsField?: boolean }>)[m]?.needsField === true;
  const metricGroupsHtml = metricGroups().map((g) => ({
    label: g.group,
    options: g.metrics.map((m) => ({
      value: m,
      label: metricLabel(m),
      note: metricUnit(m),
      data: html` data-aggregations="${aggregationsOf(m).join(' ')}"${needsField(m) ? html` data-needs-field` : ''}`,
    })),
  }));
  return section(
    'what',
    'What it shows',
    'What is measured, and how it is drawn on the analytics page.',
    html`<div class="settings">${inputRow({ key: 'name', label: 'Name', value: f.name, marks, hint: 'The chart’s heading, up to 200 characters.', attrs: html` maxlength="200" autocomplete="off"` })}
${selectRow({ key: 'metric', label: 'Measure', value: f.metric, marks, empty: 'Choose what to measure', groups: metricGroupsHtml, hint: 'Each with the unit it is counted in.' })}
${selectRow({
  key: 'aggregation',
  label: 'Shown as',
  value: f.aggregation,
  marks,
  empty: 'The measure’s usual',
  options: AGGREGATIONS_ALL.map((a) => ({ value: a, label: inWords(a, AGGREGATION_WORDS) })),
  hint: takesInWords(f.metric),
})}
${inputRow({
  key: 'field',
  label: 'Field of the post-call analysis',
  value: f.field,
  marks,
  className: `field-row${f.field !== '' || needsField(f.metric) || errors.field !== undefined ? ' shown' : ''}`,
  hint: html`For Top outcomes and Outcome value only: <code>sentiment</code>, <code>fields.plan</code>, or <code>collected.&lt;name&gt;</code> for a value a playbook collected.`,
  attrs: html` autocomplete="off" spellcheck="false"`,
})}
${selectRow({ key: 'chart_type', label: 'Drawn as', value: f.chart_type, marks, options: CHART_TYPES.map((t) => ({ value: t, label: inWords(t, CHART_TYPE_WORDS) })), hint: `Default: ${inWords(DEFAULTS.chart_type, CHART_TYPE_WORDS).toLowerCase()}. Lines need a time step (below).` })}
${inputRow({
  key: 'limit',
  label: 'Series shown, at most',
  value: f.limit,
  marks,
  type: 'number',
  unit: 'series',
  attrs: html` min="${LIMIT.min}" max="${LIMIT.max}" step="1" inputmode="numeric" placeholder="${LIMIT.default}"`,
  hint: `Default ${LIMIT.default} · ${LIMIT.min} to ${LIMIT.max}. The largest first; the rest are added up as “other” where the measure adds up.`,
})}</div>`,
  );
}

function zoneSelect(value: string, marks: Marks): Html {
  const key = 'timezone';
  const id = idOf(key);
  const error = marks.at(key);
  const current = value || DEFAULTS.timezone;
  // A zone the list lacks (a stored link such as US/Eastern, or text the API refused) is offered as it is, so it is kept.
  const unlisted = isListed(current) ? '' : html`<option value="${current}" selected>${current}</option>`;
  return html`<div class="setting"><label for="${id}">Time zone</label><select id="${id}" name="${key}"${aria(id, true, error)}>${unlisted}${zoneGroups().map(
    (g) =>
      html`<optgroup label="${g.region}">${g.zones.map((z) => html`<option value="${z.id}"${z.id === current ? html` selected` : ''}>${z.label}</option>`)}</optgroup>`,
  )}</select><span class="hint" id="${id}-hint">Default ${DEFAULTS.timezone}. Days, weeks and the periods above start at midnight on this clock.</span>${errorLine(id, error)}</div>`;
}

function periodSection(values: ChartFormValues, marks: Marks): Html {
  const f = values.fields;
  const preset = f['period.preset'];
  const defaultPeriod = 'preset' in DEFAULTS.period ? inWords(DEFAULTS.period.preset, PRESET_WORDS).toLowerCase() : '';
  return section(
    'period',
    'Period',
    'The calls made in this period count; the analytics page can show another period without changing the chart.',
    html`<div class="settings">${selectRow({
      key: 'period.preset',
      label: 'Period',
      value: preset,
      marks,
      options: [...PRESETS.map((p) => ({ value: p, label: inWords(p, PRESET_WORDS) })), { value: CUSTOM, label: 'Days of your choice' }],
      hint: `Default: ${defaultPeriod}.`,
    })}
${zoneSelect(f.timezone, marks)}
<div class="custom-range" data-custom-range>${inputRow({ key: 'period.from', label: 'First day', type: 'date', value: f['period.from'], marks, hint: 'Counted from its midnight.' })}
${inputRow({ key: 'period.last_day', label: 'Last day', type: 'date', value: f['period.last_day'], marks, hint: 'Counted to its end: the day is included.' })}</div></div>`,
  );
}

function groupingSection(values: ChartFormValues, marks: Marks): Html {
  const f = values.fields;
  const timeId = idOf('group_by.time');
  const timeError = marks.at('group_by.time');
  const time = f['group_by.time'];
  const radios = [{ value: '', label: 'Not over time: one total' }, ...TIME_BUCKETS.map((b) => ({ value: b, label: inWords(b, BUCKET_WORDS) }))];
  const unlisted = time !== '' && !TIME_BUCKETS.includes(time) ? [{ value: time, label: time }] : [];
  return section(
    'grouping',
    'Grouping',
    `A line or a bar for each value of what is ticked. ${MOST_GROUPS} at most in all, a time step counting as one.`,
    html`<div class="settings"><fieldset class="setting wide picker" id="${timeId}"${aria(timeId, false, timeError)}><legend>Over time</legend><div class="choices">${[
      ...radios,
      ...unlisted,
    ].map(
      (r, i) =>
        html`<label class="check" for="${timeId}-${i}"><input type="radio" id="${timeId}-${i}" name="group_by.time" value="${r.value}"${r.value === time ? html` checked` : ''}> <span>${r.label}</span></label>`,
    )}</div>${errorLine(timeId, timeError)}</fieldset>
${boxes({
  key: 'group_by',
  name: 'group_by',
  legend: 'Split by',
  options: DIMENSIONS.map((d) => ({ value: d, label: inWords(d, DIMENSION_WORDS) })),
  chosen: values.groups,
  marks,
  hint: 'Assistants, campaigns and numbers by their names.',
})}
${inputRow({
  key: 'group_by.outcome',
  label: 'Split by a field of the post-call analysis',
  value: f['group_by.outcome'],
  marks,
  hint: html`Optional: <code>sentiment</code>, <code>fields.plan</code>, or <code>collected.&lt;name&gt;</code>.`,
  attrs: html` autocomplete="off" spellcheck="false"`,
})}</div>`,
  );
}

export function chartForm(o: ChartFormOptions): Html {
  const marks = new Marks(o.errors);
  const sections = html`${whatSection(o.values, marks, o.errors)}
${periodSection(o.values, marks)}
${groupingSection(o.values, marks)}
${filtersSection(o.values, o.choices, marks, o.errors)}`;
  // Drawn after the sections, which have claimed their refusals: any left are listed here, so none goes unseen.
  const notice = refusalNotice(o.errors, marks);
  // The first submit button is the one Enter presses: saving, not the contact search further down.
  return html`${notice}
<form method="post" action="${o.action}" novalidate class="chart-form" data-chart-form>${o.csrf}<button type="submit" name="intent" value="save" class="visually-hidden" tabindex="-1" aria-hidden="true">${o.submit}</button>
${sections}
<div class="actions save-bar"><button type="submit" name="intent" value="save">${o.submit}</button><button type="submit" name="intent" value="preview" class="secondary">Preview</button><a href="${o.cancel}">Cancel</a></div>
</form>`;
}
