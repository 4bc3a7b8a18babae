import { describe, expect, it } from 'vitest';
import { ToolCreate, type ToolOut } from '../../../../modules/tools/index.js';
import { bodyOfValues, valuesOfPost, valuesOfTool } from './form-fields.js';
import { postedForm } from '../../../../test/helpers/posted-form.js';

// The tool form's posted fields turned into the API's body: what a browser posts without a script, what the schema
// then takes, and the way back from a stored tool to the same fields, its secret headers unseen.

const posted = postedForm;

const http: [string, string][] = [
  ['type', 'http'],
  ['name', 'lookup_order'],
  ['http.method', 'GET'],
  ['http.url', 'https://api.example.com/orders/{{args.number}}'],
];

const stored: ToolOut = {
  mcp: null,
  id: 4,
  name: 'lookup_order',
  description: 'Finds an order',
  type: 'http',
  enabled: true,
  parameters: { type: 'object', properties: { number: { type: 'string' } }, required: ['number'] },
  http: {
    method: 'POST',
    url: 'https://api.example.com/orders',
    headers: { Accept: 'application/json' },
    query: { region: '{{var.region}}' },
    body: { order: '{{args.number}}' },
    secret_headers: { Authorization: '****1234' },
    timeout_ms: 2500,
  },
  transfer: null,
  messages: { on_start: 'One moment.', on_slow: null, slow_after_ms: 2000, on_failure: null },
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
};

/** What the browser posts for the form as shown, rows as they stand and the spare rows empty. */
function shownAsPosted(tool: ToolOut): Record<string, string | string[]> {
  const values = valuesOfTool(tool);
  const fields: [string, string][] = Object.entries(values.fields).map(([k, v]) => [k, v]);
  values.headers.forEach((h, i) => {
    fields.push(['header_name[]', h.name], ['header_value[]', h.value], ['header_kept[]', h.kept]);
    if (h.secret) fields.push(['header_secret[]', String(i)]);
  });
  fields.push(['header_name[]', ''], ['header_value[]', ''], ['header_kept[]', '']);
  for (const q of values.query) fields.push(['query_name[]', q.name], ['query_value[]', q.value]);
  values.params.forEach((p, i) => {
    fields.push(['param_name[]', p.name], ['param_type[]', p.type], ['param_description[]', p.description], ['param_values[]', p.values]);
    if (p.required) fields.push(['param_required[]', String(i)]);
  });
  fields.push(['param_name[]', ''], ['param_type[]', 'string'], ['param_description[]', ''], ['param_values[]', '']);
  return posted(fields);
}

describe('the tool form’s fields as the API’s body', () => {
  it('makes an HTTP tool of rows: headers with a secret one, a query parameter, an argument, and the timeout in seconds', () => {
    const { body, problems } = bodyOfValues(
      valuesOfPost(
        posted([
          ...http,
          ['header_name[]', 'Accept'],
          ['header_value[]', 'application/json'],
          ['header_kept[]', ''],
          ['header_name[]', 'X-Api-Key'],
          ['header_value[]', 'sk_live_abcdefghijklmnop'],
          ['header_kept[]', ''],
          ['header_secret[]', '1'],
          ['header_name[]', ''],
          ['header_value[]', ''],
          ['header_kept[]', ''],
          ['query_name[]', 'expand'],
          ['query_value[]', 'items'],
          ['param_name[]', 'number'],
          ['param_type[]', 'string'],
          ['param_description[]', 'The order number'],
          ['param_values[]', ''],
          ['param_required[]', '0'],
          ['param_name[]', ''],
          ['param_type[]', 'string'],
          ['param_description[]', ''],
          ['param_values[]', ''],
          ['http.timeout_ms', '2.5'],
          ['enabled', 'false'],
          ['enabled', 'true'],
        ]),
      ),
    );
    expect(problems).toEqual({});
    const tool = ToolCreate.parse(body);
    expect(tool.http).toEqual({
      method: 'GET',
      url: 'https://api.example.com/orders/{{args.number}}',
      headers: { Accept: 'application/json' },
      query: { expand: 'items' },
      body: null,
      secret_headers: { 'X-Api-Key': 'sk_live_abcdefghijklmnop' },
      timeout_ms: 2500,
    });
    expect(tool.parameters).toEqual({ type: 'object', properties: { number: { type: 'string', description: 'The order number' } }, required: ['number'] });
    expect(tool.enabled).toBe(true);
    expect(tool.transfer).toBeNull();
  });

  it('gives back the stored tool when its form is posted unchanged, the secret sent as the mask that keeps it', () => {
    const { body, problems } = bodyOfValues(valuesOfPost(shownAsPosted(stored)), stored.http!.secret_headers);
    expect(problems).toEqual({});
    const { id: _i, created_at: _c, updated_at: _u, ...fields } = stored;
    expect(ToolCreate.parse(body)).toEqual(fields);
  });

  it('never fills a stored secret into the form', () => {
    const values = valuesOfTool(stored);
    expect(values.headers).toContainEqual({ name: 'Authorization', value: '', secret: true, kept: 'Authorization' });
    expect(JSON.stringify(values)).not.toContain('****1234');
  });

  it('asks for a secret again when its row is renamed, left empty without a saved one, or turned into a plain header', () => {
    const masks = { Authorization: '****1234' };
    const row = (name: string, value: string, kept: string): [string, string][] => [
      ['header_name[]', name],
      ['header_value[]', value],
      ['header_kept[]', kept],
    ];
    const fields: [string, string][] = [
      ...http,
      ...row('Auth', '', 'Authorization'),
      ...row('X-Key', '', ''),
      ...row('Authorization', '', 'Authorization'),
      ['header_secret[]', '0'],
      ['header_secret[]', '1'],
    ];
    const { body, problems } = bodyOfValues(valuesOfPost(posted(fields)), masks);
    expect(problems).toEqual({
      'header.0.value': expect.stringMatching(/Type the value again/),
      'header.1.value': 'Type the secret value, or clear the row.',
      'header.2.value': expect.stringMatching(/never shown/),
    });
    expect((body.http as { secret_headers: unknown }).secret_headers).toEqual({});
  });

  it('keeps a secret under its saved name whatever its case, and drops a secret row whose name was cleared', () => {
    const masks = { Authorization: '****1234', 'X-Old': '****' };
    const fields: [string, string][] = [
      ...http,
      ['header_name[]', 'authorization'],
      ['header_value[]', ''],
      ['header_kept[]', 'Authorization'],
      ['header_secret[]', '0'],
      ['header_name[]', ''],
      ['header_value[]', ''],
      ['header_kept[]', 'X-Old'],
      ['header_secret[]', '1'],
    ];
    const { body, problems } = bodyOfValues(valuesOfPost(posted(fields)), masks);
    expect(problems).toEqual({});
    expect((body.http as { secret_headers: unknown }).secret_headers).toEqual({ authorization: '****1234' });
  });

  it('sends only the chosen kind’s config: a transfer has no request, a built-in no arguments of its own', () => {
    const transfer = bodyOfValues(
      valuesOfPost(
        posted([
          ['type', 'transfer_call'],
          ['name', 'to_desk'],
          ['http.url', 'https://left.example.com'],
          ['param_name[]', 'leftover'],
          ['transfer.destination', ' +14155550123 '],
          ['transfer.mode', 'warm'],
          ['transfer.handoff_message', 'Putting you through.'],
        ]),
      ),
    );
    expect(transfer.problems).toEqual({});
    const parsed = ToolCreate.parse(transfer.body);
    expect(parsed.http).toBeNull();
    expect(parsed.parameters).toEqual({ type: 'object', properties: {} });
    expect(parsed.transfer).toEqual({
      destination: '+14155550123',
      mode: 'warm',
      handoff_message: 'Putting you through.',
      briefing_prompt: null,
      hold_audio: 'music',
      ring_timeout_s: 25,
      on_decline_message: null,
    });
    const end = ToolCreate.parse(
      bodyOfValues(
        valuesOfPost(
          posted([
            ['type', 'end_call'],
            ['name', 'hang_up'],
          ]),
        ),
      ).body,
    );
    expect(end).toMatchObject({ http: null, transfer: null, type: 'end_call' });
  });

  it('reads a JSON Schema instead of the rows when asked, and refuses JSON that is not JSON at its area', () => {
    const schema = { type: 'object', properties: { tags: { type: 'array', items: { type: 'string' } } } };
    const asJson = bodyOfValues(
      valuesOfPost(
        posted([...http, ['parameters_as_json', 'false'], ['parameters_as_json', 'true'], ['parameters', JSON.stringify(schema)], ['param_name[]', 'ignored']]),
      ),
    );
    expect(asJson.body.parameters).toEqual(schema);
    const broken = bodyOfValues(valuesOfPost(posted([...http, ['parameters_as_json', 'true'], ['parameters', '{"type": "object",']])));
    expect(broken.problems.parameters).toMatch(/^Not valid JSON/);
    const body = bodyOfValues(valuesOfPost(posted([...http, ['http.body', '{"a": ']])));
    expect(body.problems['http.body']).toMatch(/^Not valid JSON/);
  });

  it('reads fields of any shape a request can carry without failing', () => {
    for (const form of [undefined, null, 'text', [1, 2], { name: ['A', 'B'], type: { x: 1 }, 'header_name[]': [{}, 'X'], 'param_required[]': 5 }]) {
      const built = bodyOfValues(valuesOfPost(form));
      expect(typeof built.body.name).toBe('string');
      expect(ToolCreate.safeParse(built.body).success).toBe(false);
    }
  });
});
