// The tool and playbook forms' enhancements (api/dashboard/pages/tool-form/, playbook-form/): rows added and removed by
// buttons instead of a spare row, a row's controls for its type only, a tool's cards for its kind only, and a tool's
// arguments switched between rows and JSON Schema with nothing lost. The forms post the same fields without them.

const TYPES = ['string', 'number', 'integer', 'boolean'];
const LISTED = ['string', 'number', 'integer'];
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

// The same rules as parameter-rows.ts: the rows a JSON Schema is, or null when rows would lose some of it.
function rowsOfSchema(schema) {
  const isRecord = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
  if (!isRecord(schema) || schema.type !== 'object') return null;
  if (Object.keys(schema).some((k) => !['type', 'properties', 'required'].includes(k))) return null;
  const properties = schema.properties ?? {};
  const required = schema.required ?? [];
  if (!isRecord(properties) || !Array.isArray(required)) return null;
  if (required.some((r) => typeof r !== 'string' || !(r in properties)) || new Set(required).size !== required.length) return null;
  const rows = [];
  for (const [name, p] of Object.entries(properties)) {
    if (!isRecord(p) || name === '' || name.trim() !== name) return null;
    if (Object.keys(p).some((k) => !['type', 'description', 'enum'].includes(k))) return null;
    if (!TYPES.includes(p.type)) return null;
    if (p.description !== undefined && (typeof p.description !== 'string' || p.description.includes('\n'))) return null;
    let values = '';
    if (p.enum !== undefined) {
      if (!Array.isArray(p.enum) || p.enum.length === 0 || !LISTED.includes(p.type)) return null;
      const fits =
        p.type === 'string'
          ? p.enum.every((v) => typeof v === 'string' && v !== '' && v.trim() === v && !v.includes('\n'))
          : p.enum.every((v) => typeof v === 'number' && Number.isFinite(v) && (p.type === 'number' || Number.isInteger(v)));
      if (!fits) return null;
      values = p.enum.map(String).join('\n');
    }
    rows.push({ name, type: p.type, description: p.description ?? '', required: required.includes(name), values });
  }
  return rows;
}

function schemaOfRows(rows) {
  const properties = {};
  const required = [];
  for (const row of rows) {
    if (row.name === '' || row.name in properties) continue;
    const property = { type: row.type };
    if (row.description.trim() !== '') property.description = row.description.trim();
    const lines = row.values
      .split(/\r?\n/)
      .map((l) => l.trim())
      .filter(Boolean);
    if (lines.length > 0 && LISTED.includes(row.type)) {
      property.enum = row.type === 'string' ? lines : lines.every((l) => NUMBER.test(l)) ? lines.map(Number) : lines;
    }
    properties[row.name] = property;
    if (row.required) required.push(row.name);
  }
  return required.length > 0 ? { type: 'object', properties, required } : { type: 'object', properties };
}

/** A list of rows: the spare row becomes the pattern for new ones, and each row is numbered for its labels and switches. */
function rowEditor(editor) {
  const list = editor.querySelector('[data-row-list]');
  const add = editor.querySelector('[data-add-row]');
  const spare = list.querySelector(':scope > [data-spare]');
  const pattern = spare.cloneNode(true);
  pattern.removeAttribute('data-spare');
  spare.remove();
  const max = editor.dataset.max ? Number(editor.dataset.max) : Infinity;
  const rows = () => [...list.querySelectorAll(':scope > [data-row]')];

  const showFor = (row) => {
    const type = row.querySelector('[data-row-type]')?.value;
    for (const part of row.querySelectorAll('[data-shows-for]')) part.hidden = !part.dataset.showsFor.split(' ').includes(type);
  };
  const renumber = () => {
    rows().forEach((row, i) => {
      for (const input of row.querySelectorAll('[data-index]')) input.value = String(i);
      for (const span of row.querySelectorAll('[data-nth]')) span.textContent = span.dataset.nth.replace('{n}', String(i + 1));
    });
    add.disabled = rows().length >= max;
  };
  const append = () => {
    const row = pattern.cloneNode(true);
    list.append(row);
    for (const remove of row.querySelectorAll('[data-remove-row]')) remove.hidden = false;
    showFor(row);
    renumber();
    return row;
  };

  for (const row of rows()) showFor(row);
  for (const remove of editor.querySelectorAll('[data-remove-row]')) remove.hidden = false;
  add.hidden = false;
  renumber();

  add.addEventListener('click', () => append().querySelector('input, select, textarea')?.focus());
  list.addEventListener('click', (event) => {
    const remove = event.target.closest('[data-remove-row]');
    if (!remove) return;
    remove.closest('[data-row]').remove();
    renumber();
    add.focus();
  });
  list.addEventListener('change', (event) => {
    const row = event.target.closest('[data-row]');
    if (event.target.matches('[data-row-type]')) showFor(row);
    // A secret's value is typed unseen.
    if (event.target.matches('input[name="header_secret[]"]')) {
      const value = row.querySelector('[data-secret-value]');
      if (value) value.type = event.target.checked ? 'password' : 'text';
    }
  });
  return { rows, append, renumber, clear: () => rows().forEach((r) => r.remove()) };
}

const editors = new Map();
for (const editor of document.querySelectorAll('form[data-tool-form] [data-rows], form[data-playbook-form] [data-rows]'))
  editors.set(editor.id, rowEditor(editor));

const toolForm = document.querySelector('form[data-tool-form]');
if (toolForm) {
  // Only the chosen kind's cards: the others are not read when the form is saved.
  for (const note of toolForm.querySelectorAll('[data-no-script]')) note.hidden = true;
  const showKind = () => {
    const kind = toolForm.querySelector('input[name="type"]:checked')?.value;
    for (const card of toolForm.querySelectorAll('[data-kind-section]')) card.hidden = card.dataset.kindSection !== kind;
  };
  toolForm.addEventListener('change', (event) => {
    if (event.target.matches('input[name="type"]')) showKind();
  });
  showKind();

  const params = editors.get('f-param-rows');
  const rowsBox = toolForm.querySelector('[data-param-rows]');
  const asJson = toolForm.querySelector('input[type=checkbox][name="parameters_as_json"]');
  const json = toolForm.querySelector('textarea[name="parameters"]');
  const note = toolForm.querySelector('[data-json-note]');
  const readRows = () =>
    params.rows().map((row) => ({
      name: row.querySelector('[name="param_name[]"]').value.trim(),
      type: row.querySelector('[name="param_type[]"]').value,
      description: row.querySelector('[name="param_description[]"]').value,
      required: row.querySelector('[name="param_required[]"]').checked,
      values: row.querySelector('[name="param_values[]"]').value,
    }));
  const say = (text) => {
    note.textContent = text;
    note.hidden = text === '';
  };
  rowsBox.hidden = asJson.checked;
  asJson.addEventListener('change', () => {
    say('');
    if (asJson.checked) {
      // The rows as they stand become the JSON Schema to edit.
      json.value = JSON.stringify(schemaOfRows(readRows()), null, 2);
      rowsBox.hidden = true;
      return;
    }
    let schema;
    try {
      schema = JSON.parse(json.value);
    } catch {
      asJson.checked = true;
      say('This is not valid JSON yet: fix it, or it stays as JSON.');
      return;
    }
    const rows = rowsOfSchema(schema);
    if (rows === null) {
      asJson.checked = true;
      say('This schema says more than rows can (nested objects, lists, formats or bounds): it stays as JSON, so nothing of it is lost.');
      return;
    }
    params.clear();
    for (const r of rows) {
      const row = params.append();
      row.querySelector('[name="param_name[]"]').value = r.name;
      row.querySelector('[name="param_type[]"]').value = r.type;
      row.querySelector('[name="param_description[]"]').value = r.description;
      row.querySelector('[name="param_required[]"]').checked = r.required;
      row.querySelector('[name="param_values[]"]').value = r.values;
      row.querySelector('[data-row-type]').dispatchEvent(new Event('change', { bubbles: true }));
    }
    rowsBox.hidden = false;
  });
}
