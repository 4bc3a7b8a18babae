import { z } from 'zod';
import { int } from '../../lib/zod/int.js';
import { idParam } from '../../lib/zod/query.js';
import { CrawlSettings, refreshIntervalHours, sourceUrl } from './url-source-settings.js';

// Knowledge documents as the API shows them: where each came from, its processing status, and its Markdown (the
// canonical form every source is converted to). docs/knowledge.md.

/** 10 MiB per file or text: a 300-page PDF is ~2-5 MiB; bigger is rarely knowledge a call needs, and costs the job. */
export const MAX_DOCUMENT_BYTES = 10 * 1024 * 1024;
/** The request a 10 MiB file makes in base64 (4/3 of it) with room for the JSON around it. */
export const DOCUMENT_BODY_LIMIT_BYTES = 15 * 1024 * 1024;
const MAX_NAME_LENGTH = 200;

export const DOCUMENT_STATUSES = ['pending', 'processing', 'ready', 'failed'] as const;
export const DOCUMENT_SOURCE_KINDS = ['upload', 'text', 'url'] as const;
export const DOCUMENT_STAGES = ['fetch', 'parse', 'chunk', 'embed'] as const;

const name = z.string().trim().min(1).max(MAX_NAME_LENGTH);

/** As Stripe's: up to 50 keys of at most 40 characters, string values of at most 500. */
export const DocumentMetadata = z
  .record(z.string().min(1).max(40), z.string().max(500))
  .refine((m) => Object.keys(m).length <= 50, 'at most 50 keys')
  .describe("Your own key-value pairs (up to 50 keys of 40 characters, values of 500), shown with the source in a call's context when `include_metadata` is on")
  .meta({ id: 'DocumentMetadata' });

export const DocumentCreate = z
  .strictObject({
    name: name.optional().describe('Shown in lists; defaults to the file name for an upload. Required with `text`'),
    text: z.string().min(1).optional().describe('A text source: Markdown (plain text is Markdown too). At most 10 MiB as UTF-8'),
    filename: z.string().trim().min(1).max(255).optional().describe('An upload: the file name; its extension tells the type when `media_type` does not'),
    content_base64: z.string().min(1).optional().describe('An upload: the file, base64. At most 10 MiB decoded'),
    media_type: z
      .string()
      .max(100)
      .optional()
      .describe('An upload: the type (application/pdf, the .docx type, text/html, text/csv, text/markdown, text/plain)'),
    source_url: sourceUrl.optional(),
    crawl: CrawlSettings.nullable().optional().describe('A URL source: follow same-site links; absent or null fetches the page alone'),
    refresh_interval_hours: refreshIntervalHours.optional(),
    metadata: DocumentMetadata.optional(),
  })
  .meta({
    id: 'DocumentCreate',
    description:
      'One source: `text` (with `name`), an upload (`content_base64` with `filename` and/or `media_type`), or a `source_url` (with `crawl` and `refresh_interval_hours` if wanted).',
  });
export type DocumentCreateIn = z.output<typeof DocumentCreate>;

export const DocumentUpdate = z
  .strictObject({
    name: name.optional(),
    metadata: DocumentMetadata.optional().describe('Replaces the whole metadata'),
    refresh_interval_hours: refreshIntervalHours.optional().describe('A URL source only: how often it is fetched again (hours); null never'),
    crawl: CrawlSettings.nullable().optional().describe('A URL source only: takes effect at the next fetch'),
  })
  .meta({ id: 'DocumentUpdate', description: "Name, metadata and a URL source's refresh; the content has its own route." });
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
    embedding_model: z.string().nullable().describe('The embedding model of its first index (`indexes`); null until processed'),
    indexes: z
      .array(
        z.object({
          chunking: z.string().describe('`strategy:chunk_size:chunk_overlap`'),
          embedding_model: z.string(),
          chunk_count: z.int(),
          token_count: z.int(),
        }),
      )
      .describe('What search can use: one per chunking and embedding model its assistants ask for (the defaults when attached to none)'),
    source_url: z.string().nullable(),
    crawl: CrawlSettings.nullable(),
    refresh_interval_hours: z.int().nullable(),
    fetched_at: z.iso.datetime().nullable().describe('A URL source: when it was last fetched'),
    next_refresh_at: z.iso.datetime().nullable(),
    metadata: z.record(z.string(), z.string()),
    processed_at: z.iso.datetime().nullable(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: 'Document' });
export type DocumentOutT = z.infer<typeof DocumentOut>;

export const DocumentContent = z.object({ document_id: z.int(), content: z.string().describe('Markdown') }).meta({ id: 'DocumentContent' });

export const DocumentParams = z.object({ document_id: idParam });

export const DocumentSearch = z
  .strictObject({
    query: z.string().trim().min(1).max(2_000).describe('What a caller would say'),
    assistant_id: int().min(1).optional().describe("Search this assistant's attached documents with its rag_settings"),
    document_ids: z.array(int().min(1)).min(1).max(100).optional().describe('Or these documents'),
    search_limit: int().min(1).max(50).optional().describe("Hits returned: the assistant's search_limit, else 3"),
    similarity_threshold: z.number().min(0).max(1).optional().describe("Calibrated relevance a vector hit needs: the assistant's, else 0.7"),
    embedding_model: z.string().min(1).max(200).optional().describe('With document_ids: the vectors to use; default: the model most of them are indexed with'),
  })
  .meta({ id: 'DocumentSearch', description: 'Exactly one of `assistant_id` and `document_ids`.' });

export const SearchHit = z
  .object({
    chunk_id: z.int(),
    document_id: z.int(),
    document_name: z.string(),
    heading_path: z.array(z.string()),
    content: z.string(),
    token_count: z.int(),
    metadata: z.record(z.string(), z.string()),
    lexical_rank: z.int().nullable(),
    lexical_score: z.number().nullable().describe('Full-text rank (ts_rank, length-normalised)'),
    vector_rank: z.int().nullable(),
    vector_score: z.number().nullable().describe('Cosine similarity'),
    relevance: z.number().nullable().describe('The cosine calibrated for the model, 0–1: what similarity_threshold applies to'),
    fused_score: z.number().describe('Reciprocal rank fusion: sum of 1 / (60 + rank) over both lists'),
  })
  .meta({ id: 'SearchHit' });

export const SearchResultOut = z
  .object({
    query: z.string(),
    embedding_model: z.string(),
    chunking: z.string(),
    similarity_threshold: z.number(),
    search_limit: z.int(),
    documents_searched: z.int(),
    hits: z.array(SearchHit),
    below_threshold: z.int().describe('Vector hits left out under the threshold'),
    vector_error: z.string().nullable().describe('Why vectors took no part (a missing key, the vendor down); words were still searched'),
    timings_ms: z.object({ embed_ms: z.number(), lexical_ms: z.number(), vector_ms: z.number(), fetch_ms: z.number(), total_ms: z.number() }),
  })
  .meta({ id: 'SearchResult' });
