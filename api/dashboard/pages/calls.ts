import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  CALL_DIRECTIONS,
  CALL_STATUSES,
  CALL_TRANSPORTS,
  CallExportQuery,
  CallListQuery,
  CallParams,
  exportCalls,
  findRecording,
  getCall,
  getTranscript,
  listCalls,
  RecordingParams,
} from '../../../modules/calls/index.js';
import { assistantName, listAssistants } from '../../../modules/assistants/index.js';
import { paginationOf } from '../../../lib/pagination.js';
import { sendRecording } from '../../http/recording-response.js';
import { html, type Html } from '../html.js';
import { dashboardPage, sendPage } from '../layout.js';
import { when } from '../format.js';
import type { DashboardDeps } from '../deps.js';
import { readPeaks } from '../../../media/recording/peaks.js';
import { analysisProblem, costView, decisionInWords, latencySplit, lookupInWords, toolCallsView, collectedView, valuesView } from './call-review.js';
import { callWaveform, clock, turnAnchor } from './call-waveform.js';

/** What a call kept, as its page says it. */
const PRIVACY_IN_WORDS = {
  full: 'Everything said',
  redacted: 'Redacted: personal details masked in the words, beeped in the recording',
  metadata_only: 'Metadata only: no words, no recording',
} as const;

const session = { auth: 'session' as const };

/** The list's filters as a query string again, for paging and the export link; empty values dropped. */
function queryOf(query: Record<string, unknown>, extra: Record<string, string | number> = {}): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries({ ...query, ...extra })) {
    for (const item of Array.isArray(v) ? v : [v])
      if (item !== undefined && item !== null && item !== '') params.append(k, item instanceof Date ? item.toISOString() : String(item));
  }
  return params.toString();
}

function select(name: string, label: string, options: readonly (string | [string, string])[], value: unknown): Html {
  const chosen = Array.isArray(value) ? value.map(String) : value === undefined ? [] : [String(value)];
  return html`<div><label for="q-${name}">${label}</label><select id="q-${name}" name="${name}"><option value="">any</option>${options.map((o) => {
    const [v, text] = typeof o === 'string' ? [o, o] : o;
    return html`<option value="${v}"${chosen.includes(v) ? html` selected` : ''}>${text}</option>`;
  })}</select></div>`;
}

export function registerCallPages(app: FastifyInstance, deps: DashboardDeps): void {
  app.get('/calls', { config: session, schema: { querystring: CallListQuery } }, async (request, reply) => {
    const me = request.signedIn!;
    const raw = request.query as Record<string, unknown>;
    const { page, per_page, ...filters } = request.query as z.output<typeof CallListQuery>;
    const [{ data, total }, assistants] = await Promise.all([
      listCalls(deps.prisma, me.organizationId, filters, page, per_page),
      listAssistants(deps.prisma, me.organizationId, 1, 100, deps.secrets),
    ]);
    const pagination = paginationOf(page, per_page, total);
    const names = new Map(assistants.data.map((a) => [a.id, a.name]));
    const rawFilters = Object.fromEntries(Object.entries(raw).filter(([k]) => k !== 'page'));
    const form = html`<form method="get" action="/calls" class="card"><div class="row">
${select('status', 'Status', CALL_STATUSES, raw.status)}
${select('direction', 'Direction', CALL_DIRECTIONS, raw.direction)}
${select('transport', 'Transport', CALL_TRANSPORTS, raw.transport)}
<div><label for="q-phone">Phone number</label><input id="q-phone" type="text" name="phone_number" placeholder="+14155550100" value="${typeof raw.phone_number === 'string' ? raw.phone_number : ''}"></div>
${select(
  'assistant_id',
  'Assistant',
  assistants.data.map((a) => [String(a.id), a.name] as [string, string]),
  raw.assistant_id,
)}
<div><label for="q-after">From</label><input id="q-after" type="date" name="created_after" value="${typeof raw.created_after === 'string' ? raw.created_after : ''}"></div>
<div><label for="q-before">Before</label><input id="q-before" type="date" name="created_before" value="${typeof raw.created_before === 'string' ? raw.created_before : ''}"></div>
<div class="fit"><button type="submit">Filter</button></div></div>
<p class="hint">Dates are midnight UTC, as in the API. <a href="/calls/export?${queryOf(rawFilters)}">Export these calls as CSV</a></p></form>`;
    const table =
      data.length === 0
        ? html`<div class="card empty">No calls ${Object.keys(rawFilters).length > 0 ? 'match these filters' : 'yet: start a test call from an assistant’s page'}.</div>`
        : html`<div class="table-wrap"><table><thead><tr><th>Started</th><th>Status</th><th class="hide-phone">Direction</th><th>Assistant</th><th class="hide-phone">Number</th><th>Duration</th></tr></thead><tbody>${data.map(
            (
              c,
            ) => html`<tr><td><a href="/calls/${c.call_sid}">${when(c.started_at ?? c.created_at)}</a></td><td><span class="badge${c.status === 'completed' ? '' : ' off'}">${c.status}</span></td>
<td class="hide-phone">${c.direction} · ${c.transport}${c.widget_key_id ? ' · widget' : ''}</td><td>${c.assistant_id ? (names.get(c.assistant_id) ?? `#${c.assistant_id}`) : ''}</td>
<td class="hide-phone">${c.direction === 'inbound' ? c.from_number : c.to_number}</td><td>${c.duration_seconds === null ? '' : `${Math.round(c.duration_seconds)} s`}</td></tr>`,
          )}</tbody></table></div>
<p>${total} ${total === 1 ? 'call' : 'calls'}. ${page > 1 ? html`<a href="/calls?${queryOf(rawFilters, { page: page - 1 })}">Previous</a>` : ''} ${page < pagination.total_pages ? html`<a href="/calls?${queryOf(rawFilters, { page: page + 1 })}">Next</a>` : ''}</p>`;
    return sendPage(reply, dashboardPage(request, 'Calls', html`${form}${table}`));
  });

  app.get('/calls/export', { config: session, schema: { querystring: CallExportQuery } }, async (request, reply) => {
    const { format, ...filters } = request.query as z.output<typeof CallExportQuery>;
    return reply
      .type(format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8')
      .header('content-disposition', `attachment; filename="calls-${new Date().toISOString().slice(0, 10)}.${format}"`)
      .send(exportCalls(deps.prisma, request.signedIn!.organizationId, filters, format));
  });

  app.get('/calls/:call_sid', { config: session, schema: { params: CallParams } }, async (request, reply) => {
    const me = request.signedIn!;
    const { call_sid } = request.params as z.output<typeof CallParams>;
    const [call, turns] = await Promise.all([getCall(deps.prisma, me.organizationId, call_sid), getTranscript(deps.prisma, me.organizationId, call_sid)]);
    const [assistant, peaks] = await Promise.all([
      call.assistant_id ? assistantName(deps.prisma, me.organizationId, call.assistant_id) : undefined,
      // Drawn only beside tracks the call still lists; a call recorded before peaks were kept has none, and one whose
      // peaks cannot be read is shown without them.
      call.recordings.length > 0
        ? readPeaks(deps.recordings, call.call_sid).catch((error: unknown) => {
            request.log.warn({ err: error, call_sid }, 'recording peaks not readable');
            return null;
          })
        : null,
    ]);
    const mixed = call.recordings.find((r) => r.track === 'mixed') ?? call.recordings[0];
    const facts: [string, Html | string | null][] = [
      ['Status', html`<span class="badge">${call.status}</span>${call.end_reason ? ` · ${call.end_reason}` : ''}`],
      ['Direction', `${call.direction} · ${call.transport}`],
      ['From', call.from_number],
      ['To', call.to_number],
      ['Started', call.started_at ? when(call.started_at) : null],
      ['Duration', call.duration_seconds === null ? null : `${Math.round(call.duration_seconds)} s`],
      ['Assistant', call.assistant_id ? html`<a href="/assistants/${call.assistant_id}">${assistant ?? `#${call.assistant_id}`}</a>` : null],
      [
        'Version',
        call.assistant_id && call.assistant_version !== null
          ? html`<a href="/assistants/${call.assistant_id}/history">${call.assistant_draft ? `Draft on version ${call.assistant_version}` : `Version ${call.assistant_version}`}</a>`
          : null,
      ],
      ['Kept', call.privacy_mode === null ? null : PRIVACY_IN_WORDS[call.privacy_mode]],
      ['Caller lookup', lookupInWords(call.call_start_lookup)],
      ['Answered by', call.answered_by],
      ['Started from', call.widget_key_id ? html`<a href="/widgets#widget-${call.widget_key_id}">Website widget #${call.widget_key_id}</a>` : null],
    ];
    const body = html`<p><a href="/calls">← All calls</a></p>
<div class="card"><dl class="facts">${facts.filter(([, v]) => v !== null && v !== '').map(([k, v]) => html`<dt>${k}</dt><dd>${v}</dd>`)}</dl></div>
${
  mixed
    ? html`<div class="card"><h2>Recording</h2><audio id="call-audio" controls preload="metadata" src="/calls/${call.call_sid}/recordings/${mixed.track}"></audio>
${peaks ? html`${callWaveform(peaks, turns, { audioId: 'call-audio' })}<script src="/assets/call-waveform.js" defer></script>` : ''}
<p class="hint">${call.recordings.map((r) => html`<a href="/calls/${call.call_sid}/recordings/${r.track}">${r.track}</a> `)}(${mixed.format})</p></div>`
    : ''
}
<div class="card"><h2>Analysis</h2>${call.summary ? html`<p>${call.summary}</p>` : html`<p class="muted">No summary. ${analysisProblem(call.analysis_error)}</p>`}
${valuesView(call.outcomes)}${collectedView(call.collected_values)}</div>
<h2>Transcript</h2>
${
  turns.length === 0
    ? html`<div class="card empty">No turns were spoken in this call.</div>`
    : html`<div class="table-wrap"><table class="transcript"><thead><tr><th>Turn</th><th>Who</th><th>Said</th><th>Latency</th></tr></thead><tbody>${turns.map(
        (
          t,
          i,
        ) => html`<tr id="${turnAnchor(i + 1)}"><td>${i + 1} <span class="hint at">at ${clock(t.start_ms)}</span></td><td>${t.role === 'user' ? 'caller' : t.role}</td><td>${t.text}${t.tool_message ? html` <span class="badge">${t.tool_message === 'on_failure' ? 'tool failed' : 'while a tool ran'}</span>` : ''}${t.interrupted ? html` <span class="badge off">interrupted</span>` : ''}
${decisionInWords(t.turn_decision)}${toolCallsView(t.tool_calls)}</td>
<td>${latencySplit(t.metrics)}</td></tr>`,
      )}</tbody></table></div>`
}
${costView(call.cost)}`;
    return sendPage(reply, dashboardPage(request, `Call ${call.call_sid}`, body));
  });

  app.get('/calls/:call_sid/recordings/:track', { config: session, schema: { params: RecordingParams } }, async (request, reply) => {
    const { call_sid, track } = request.params as z.output<typeof RecordingParams>;
    const recording = await findRecording(deps.prisma, request.signedIn!.organizationId, call_sid, track);
    return sendRecording(reply, deps.recordings, recording, request.headers.range, call_sid);
  });
}
