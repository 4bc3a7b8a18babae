import type { Db } from '../../../prisma/client.js';
import { notFound } from '../../../lib/errors.js';
import { ragSettingsOf, specOf, type DocumentIndex, type IndexSpec } from '../index-specs.js';

// What a search looks in: an assistant's attached documents (read afresh at every search, so a document detached or
// deleted mid-call is out of the next turn's search), or documents named by id. For each, the chunk set that search
// uses: the one cut with the asked chunking when the document has it, else the one it has (a new index being built
// while the old keeps serving); and whether that set has vectors of the asked model.

export interface ScopeDocument {
  id: number;
  name: string;
  metadata: Record<string, string>;
  /** Cached vectors of another version are stale. */
  indexVersion: number;
  /** The `chunking` of the chunk set searched. */
  chunking: string;
  /** Whether that set has vectors of the model: without them it is searched by its words alone. */
  hasVectors: boolean;
}

export interface SearchScope {
  spec: IndexSpec;
  documents: ScopeDocument[];
}

interface Row {
  id: number;
  name: string;
  metadata: unknown;
  indexes: unknown;
  index_version: number;
}

export function scopeDocument(row: Row, spec: IndexSpec): ScopeDocument | undefined {
  const indexes = (Array.isArray(row.indexes) ? row.indexes : []) as DocumentIndex[];
  if (indexes.length === 0) return undefined;
  const own = indexes.filter((i) => i.chunking === spec.key);
  const chunking = own.length > 0 ? spec.key : indexes[0]!.chunking;
  const hasVectors = indexes.some((i) => i.chunking === chunking && i.embedding_model === spec.embeddingModel);
  const metadata = row.metadata !== null && typeof row.metadata === 'object' && !Array.isArray(row.metadata) ? (row.metadata as Record<string, string>) : {};
  return { id: row.id, name: row.name, metadata, indexVersion: row.index_version, chunking, hasVectors };
}

/** The scope of an assistant of the organisation: 404 for another's. Its rag_settings come with it. */
export async function assistantScope(db: Db, organizationId: number, assistantId: number) {
  const assistant = await db.assistant.findFirst({ where: { id: assistantId, organizationId }, select: { ragSettings: true } });
  if (!assistant) throw notFound('Assistant');
  const rag = ragSettingsOf(assistant.ragSettings);
  const spec = specOf(rag);
  const rows = await db.$queryRaw<Row[]>`
    SELECT d.id, d.name, d.metadata, d.indexes, d.index_version
    FROM assistant_documents ad JOIN documents d ON d.id = ad.document_id
    WHERE ad.assistant_id = ${assistantId} AND d.organization_id = ${organizationId}
    ORDER BY ad.position`;
  return { rag, scope: { spec, documents: rows.flatMap((r) => scopeDocument(r, spec) ?? []) } };
}

/** Documents of the organisation by id, searched with `spec`; an id that is not the organisation's is a 404. */
export async function documentsScope(db: Db, organizationId: number, ids: number[], spec: IndexSpec): Promise<SearchScope> {
  const rows = await db.$queryRaw<Row[]>`
    SELECT id, name, metadata, indexes, index_version FROM documents WHERE organization_id = ${organizationId} AND id = ANY(${ids})`;
  if (rows.length !== new Set(ids).size) throw notFound('Document');
  const byId = new Map(rows.map((r) => [r.id, r]));
  return { spec, documents: [...new Set(ids)].flatMap((id) => scopeDocument(byId.get(id)!, spec) ?? []) };
}
