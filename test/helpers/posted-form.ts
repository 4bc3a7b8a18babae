// A form's fields as the dashboard's body parser hands them to a route: a field posted once is a string, a field
// posted again (rows, ticked boxes) a list in the order posted.
export function postedForm(fields: [string, string][]): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of fields) {
    const had = out[k];
    out[k] = had === undefined ? v : Array.isArray(had) ? [...had, v] : [had, v];
  }
  return out;
}
