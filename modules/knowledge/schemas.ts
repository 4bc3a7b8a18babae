import { z } from 'zod';
import { idParam } from '../../lib/zod/query.js';

// Knowledge documents as the API shows them: where each came from, its processing status, and its Markdown (the
// canonical form every source is converted to). docs/knowledge.md.

/** 10 MiB per file or text: a 300-page PDF is ~2-5 MiB; bigger is rarely knowledge a call needs, and costs the job. */
export const MAX_DOCUMENT_BYTES = 10 * 1024 * 1024;
/** The request a 10 MiB file makes in base64 (4/3 of it) with room for the JSON around it. */
export const DOCUMENT_BODY_LIMIT_BYTES = 15 * 1024 * 1024;
const MAX_NAME_LENGTH = 200;

export const DOCUMENT_STATUSES = ['pending', 'processing', 'ready', 'failed'] as const;
export const DOCUMENT_SOURCE_KINDS = ['upload', 'text', 'url'] as const;
export const DOCUMENT_STAGES = ['parse', 'chunk'] as const;

const name = z.string().trim().min(1).max(MAX_NAME_LENGTH);

export const DocumentCreate = z
  .strictObject({
    name: name.optional().describe('Shown in lists; defaults to the file name for an upload. Required with `text`'),
    text: z.string().min(1).optional().describe('A text source: Markdown (plain text is Markdown too). At most 10 MiB as UTF-8'),
    filename: z.string().trim().min(1).max(255).optional().describe('An upload: the file name; its extension tells the type when `media_type` does not'),
    content_base64: z.string().min(1).optional().describe('An upload: the file, base64. At most 10 MiB decoded'),
    media_type: z.string().max(100).optional().describe('An upload: the type (application/pdf, the .docx type, text/html, text/csv, text/markdown, text/plain)'),
  })
  .meta({
    id: 'DocumentCreate',
    description: 'Either `text` (with `name`), or an upload: `content_base64` with `filename` and/or `media_type`.',
  });
export type DocumentCreateIn = z.output<typeof DocumentCreate>;

export const DocumentUpdate = z.strictObject({ name: name.optional() }).meta({ id: 'DocumentUpdate', description: 'Metadata only; the content has its own route.' });
export type DocumentUpdateIn = z.output<typeof DocumentUpdate>;

export const DocumentContentUpdate = z
  .strictObject({ content: z.string().min(1).describe('The Markdown; at most 10 MiB as UTF-8') })
  .meta({ id: 'DocumentContentUpdate' });

export const DocumentOut = z
  .object({
    id: z.int(),
    name: z.string(),
    source_kind: z.enum(DOCUMENT_SOURCE_KINDS),
    filename: z.string().nullable(),
    media_type: z.string().describe('The type of the source; the content is always Markdown'),
    size_bytes: z.int().describe('Of the source'),
    sha256: z.string().nullable().describe('Hex SHA-256 of the source bytes: the same source twice in an organisation is a 409'),
    status: z.enum(DOCUMENT_STATUSES),
    failed_stage: z.enum(DOCUMENT_STAGES).nullable().describe('Where processing failed, when `status` is failed'),
    error: z.string().nullable().describe('Why, in a sentence, when `status` is failed'),
    chunk_count: z.int(),
    token_count: z.int().describe('Estimated: characters / 4, rounded up per chunk'),
    embedding_model: z.string().nullable().describe('The model the chunks were embedded with; null until embeddings come'),
    processed_at: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'Document' });
export type DocumentOutT = z.infer<typeof DocumentOut>;

export const DocumentContent = z.object({ document_id: z.int(), content: z.string().describe('Markdown') }).meta({ id: 'DocumentContent' });

export const DocumentParams = z.object({ document_id: idParam });
