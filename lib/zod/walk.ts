import { z } from 'zod';

// Small helpers that look through zod wrappers, so that derived schemas (a PATCH body) and merges can follow the
// structure of the one schema that defines a resource.

type AnySchema = z.ZodType;

/** The schema under default/prefault/optional/nullable wrappers, and whether null was allowed on the way. */
export function unwrap(schema: AnySchema): { inner: AnySchema; nullable: boolean } {
  let current = schema;
  let nullable = false;
  for (;;) {
    const def = current._zod.def as { type: string; innerType?: AnySchema };
    if (def.type === 'nullable') nullable = true;
    if ((def.type === 'default' || def.type === 'prefault' || def.type === 'optional' || def.type === 'nullable') && def.innerType) {
      current = def.innerType;
      continue;
    }
    return { inner: current, nullable };
  }
}

export function isObjectSchema(schema: AnySchema): schema is z.ZodObject {
  return schema._zod.def.type === 'object';
}

/**
 * The same object with every field optional and no defaults, recursing into nested objects: the body of a partial
 * update. Free-form records stay whole (they are replaced, not merged).
 */
export function deepPartial(shape: Record<string, AnySchema>, strict = true): z.ZodObject {
  const partial: Record<string, AnySchema> = {};
  for (const [key, field] of Object.entries(shape)) {
    const { inner, nullable } = unwrap(field);
    let patched: AnySchema = isObjectSchema(inner) ? deepPartial(inner.shape as Record<string, AnySchema>, strict) : inner;
    if (nullable) patched = patched.nullable();
    partial[key] = patched.optional();
  }
  return strict ? z.strictObject(partial) : z.object(partial);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * Merges a partial update into a stored value following the schema: nested settings objects merge key by key, while
 * scalars, arrays, free-form objects and explicit nulls replace what was there.
 */
export function mergeBySchema(shape: Record<string, AnySchema>, stored: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...stored };
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    const field = shape[key];
    const inner = field ? unwrap(field).inner : undefined;
    if (inner && isObjectSchema(inner) && isPlainObject(value) && isPlainObject(stored[key])) {
      merged[key] = mergeBySchema(inner.shape as Record<string, AnySchema>, stored[key], value);
    } else {
      merged[key] = value;
    }
  }
  return merged;
}

type Conformer = (value: unknown) => unknown;

/**
 * A function that fills fields missing from a stored object with the schema's defaults and returns keys in the
 * schema's order. Rows written before a field existed read back complete, and JSONB's own key order never shows.
 * Built once per schema; cheap enough for every read.
 */
export function conformer(schema: z.ZodObject): Conformer {
  const defaults = schema.parse({}) as Record<string, unknown>;
  const fields = Object.entries(schema.shape as Record<string, AnySchema>).map(([key, field]) => {
    const { inner } = unwrap(field);
    return { key, nested: isObjectSchema(inner) ? conformer(inner) : undefined, fallback: defaults[key] };
  });
  return (value) => {
    if (!isPlainObject(value)) return value;
    const out: Record<string, unknown> = {};
    for (const { key, nested, fallback } of fields) {
      const stored = value[key];
      if (stored === undefined) out[key] = fallback;
      else out[key] = nested && isPlainObject(stored) ? nested(stored) : stored;
    }
    return out;
  };
}
