import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { PrismaClient } from '../../prisma/client.js';
import { AppError, ValidationFailed } from '../../lib/errors.js';
import { commonErrors, envelope, ErrorResponse, pagedEnvelope, pageQuery } from '../schemas/common.js';
import {
  createDocument,
  createUploadedDocument,
  deleteDocument,
  DOCUMENT_BODY_LIMIT_BYTES,
  DOCUMENT_STATUSES,
  DocumentContent,
  DocumentContentUpdate,
  DocumentCreate,
  DocumentOut,
  DocumentParams,
  DocumentSearch,
  DocumentUpdate,
  getDocument,
  getDocumentContent,
  type KnowledgeSearch,
  listDocuments,
  MAX_DOCUMENT_BYTES,
  replaceDocumentContent,
  reprocessDocument,
  searchDocuments,
  SearchResultOut,
  updateDocument,
} from '../../modules/knowledge/index.js';

const tags = ['Knowledge'];
const notFound = { 404: ErrorResponse.describe('No such document in this organisation') };
const tooLarge = { 413: ErrorResponse.describe('The document is over 10 MiB (`limit_bytes` says the cap)') };
const PATH = '/documents';

const ListQuery = pageQuery.extend({ status: z.enum(DOCUMENT_STATUSES).optional().describe('Only documents in this status') });

export const documentRoutes: FastifyPluginAsyncZod<{
  prisma: PrismaClient;
  knowledge: KnowledgeSearch;
  /** URL sources on loopback and private addresses are accepted (WEBHOOK_ALLOW_PRIVATE_TARGETS). */
  allowPrivateTargets?: boolean | undefined;
}> = async (app, { prisma, knowledge, allowPrivateTargets }) => {
  app.post(`${PATH}/search`, {
    schema: {
      tags,
      summary: 'Search documents (retrieval debugger)',
      description:
        "Runs the search a call runs: an assistant's attached documents with its rag_settings (`assistant_id`), or " +
        'documents by id. Each hit shows its full-text and vector ranks and scores, the calibrated relevance the ' +
        'threshold applies to, and the fused score; `timings_ms` says what each stage took. See docs/knowledge.md.',
      body: DocumentSearch,
      response: { 200: envelope(SearchResultOut), 404: ErrorResponse.describe('No such assistant or document in this organisation'), ...commonErrors },
    },
    handler: async (request) => ({
      success: true as const,
      message: 'Search completed',
      data: await searchDocuments(prisma, knowledge, request.identity.organizationId, request.body),
    }),
  });

  app.post(PATH, {
    bodyLimit: DOCUMENT_BODY_LIMIT_BYTES,
    schema: {
      tags,
      summary: 'Create a document',
      description:
        'From text (`{name, text}`: Markdown), from a file (`{filename, content_base64, media_type?}`): PDF, Word ' +
        '.docx, HTML, CSV, Markdown or plain text, at most 10 MiB; or from a URL (`{source_url, crawl?, ' +
        'refresh_interval_hours?}`), fetched in the background through the same address checks as webhooks. The ' +
        'document is queued (`status: pending`) and processed in the background: fetched or converted to Markdown, ' +
        'cut into chunks, embedded. The same file, text or URL twice in an organisation is a 409 whose `document_id` ' +
        'names the document that has it. See docs/knowledge.md.',
      body: DocumentCreate,
      response: {
        201: envelope(DocumentOut),
        409: ErrorResponse.describe('The organisation has a document with the same source (`document_id`)'),
        ...tooLarge,
        ...commonErrors,
      },
    },
    handler: async (request, reply) => {
      const data = await createDocument(prisma, request.identity.organizationId, request.body, { allowPrivateTargets: allowPrivateTargets ?? false });
      return reply.status(201).send({ success: true as const, message: 'Document created', data });
    },
  });

  // A file as browsers and curl send one. In a scope of its own, so that only this route reads multipart bodies.
  await app.register(async (upload) => {
    await upload.register(multipart, { limits: { fileSize: MAX_DOCUMENT_BYTES, files: 1, fields: 4, fieldSize: 1_000, parts: 5 } });
    upload.post(`${PATH}/upload`, {
      bodyLimit: DOCUMENT_BODY_LIMIT_BYTES,
      schema: {
        tags,
        summary: 'Upload a document file',
        description:
          '`multipart/form-data` with a `file` part (PDF, Word .docx, HTML, CSV, Markdown or plain text, at most 10 MiB) ' +
          "and optional `name` and `media_type` fields sent before it (the part's own type and file name are used " +
          'otherwise). Answers as creating a document does: 201 with the document, queued for processing.',
        consumes: ['multipart/form-data'],
        response: {
          201: envelope(DocumentOut),
          409: ErrorResponse.describe('The organisation has a document with the same source (`document_id`)'),
          415: ErrorResponse.describe('Not a multipart/form-data body'),
          ...tooLarge,
          ...commonErrors,
        },
      },
      handler: async (request, reply) => {
        if (!request.isMultipart()) throw new AppError('unsupported_media_type', 'Send the file as multipart/form-data, in a part named file');
        // The parser's own refusals (a part over its limit, too many parts) carry their 4xx; a body that breaks off or
        // is not multipart at all throws plain errors, which are the client's too.
        const asClientError = (error: unknown): never => {
          // Ours already (the body's deadline passed): answered as it is.
          if (error instanceof AppError) throw error;
          if (error instanceof upload.multipartErrors.RequestFileTooLargeError) {
            throw new AppError('payload_too_large', `Documents are at most ${MAX_DOCUMENT_BYTES} bytes (10 MiB)`, { limit_bytes: MAX_DOCUMENT_BYTES });
          }
          const status = (error as { statusCode?: number }).statusCode;
          if (status !== undefined && status >= 400 && status < 500) throw error;
          throw new AppError('bad_request', 'The multipart/form-data body is malformed');
        };
        const part = await request.file().catch(asClientError);
        if (!part || part.fieldname !== 'file')
          throw new ValidationFailed([{ loc: ['body', 'file'], msg: 'Field required: a part named file', type: 'missing' }]);
        const bytes = await part.toBuffer().catch(asClientError);
        const field = (key: string) => {
          const value = part.fields[key];
          return value && !Array.isArray(value) && value.type === 'field' && typeof value.value === 'string' && value.value !== '' ? value.value : undefined;
        };
        const data = await createUploadedDocument(prisma, request.identity.organizationId, {
          bytes,
          filename: part.filename || null,
          mediaType: field('media_type') ?? part.mimetype,
          name: field('name'),
        });
        return reply.status(201).send({ success: true as const, message: 'Document created', data });
      },
    });
  });

  app.get(PATH, {
    schema: {
      tags,
      summary: 'List documents',
      description: 'Newest first. `per_page` defaults to 20, at most 100.',
      querystring: ListQuery,
      response: { 200: pagedEnvelope(DocumentOut), ...commonErrors },
    },
    handler: async (request) => ({
      success: true as const,
      message: 'Documents retrieved',
      ...(await listDocuments(prisma, request.identity.organizationId, request.query)),
    }),
  });

  app.get(`${PATH}/:document_id`, {
    schema: { tags, summary: 'Get a document', params: DocumentParams, response: { 200: envelope(DocumentOut), ...notFound, ...commonErrors } },
    handler: async (request) => ({
      success: true as const,
      message: 'Document retrieved',
      data: await getDocument(prisma, request.identity.organizationId, request.params.document_id),
    }),
  });

  app.patch(`${PATH}/:document_id`, {
    schema: {
      tags,
      summary: 'Update a document',
      description:
        "Its `name`, `metadata`, and a URL source's `crawl` and `refresh_interval_hours`; the content is replaced with " +
        'PUT /documents/{document_id}/content.',
      params: DocumentParams,
      body: DocumentUpdate,
      response: { 200: envelope(DocumentOut), ...notFound, ...commonErrors },
    },
    handler: async (request) => ({
      success: true as const,
      message: 'Document updated',
      data: await updateDocument(prisma, request.identity.organizationId, request.params.document_id, request.body),
    }),
  });

  app.delete(`${PATH}/:document_id`, {
    schema: {
      tags,
      summary: 'Delete a document',
      description: 'With its chunks; assistants it was assigned to no longer have it.',
      params: DocumentParams,
      response: { 200: envelope(z.object({ id: z.int() })), ...notFound, ...commonErrors },
    },
    handler: async (request) => {
      await deleteDocument(prisma, request.identity.organizationId, request.params.document_id);
      return { success: true as const, message: 'Document deleted', data: { id: request.params.document_id } };
    },
  });

  app.post(`${PATH}/:document_id/process`, {
    schema: {
      tags,
      summary: 'Process a document again',
      description:
        'Queues it (`status: pending`): a failed document is retried, a URL source fetched now, and the indexes its ' +
        "assistants lack are built (needed when an assistant's `auto_process` is off). A document already queued or " +
        'being processed is answered as it is.',
      params: DocumentParams,
      response: { 202: envelope(DocumentOut), ...notFound, ...commonErrors },
    },
    handler: async (request, reply) =>
      reply.status(202).send({
        success: true as const,
        message: 'Processing queued',
        data: await reprocessDocument(prisma, request.identity.organizationId, request.params.document_id),
      }),
  });

  app.get(`${PATH}/:document_id/content`, {
    schema: {
      tags,
      summary: "Get a document's Markdown",
      description: 'The canonical form of the document. Empty while an uploaded file waits to be converted.',
      params: DocumentParams,
      response: { 200: envelope(DocumentContent), ...notFound, ...commonErrors },
    },
    handler: async (request) => ({
      success: true as const,
      message: 'Document content retrieved',
      data: await getDocumentContent(prisma, request.identity.organizationId, request.params.document_id),
    }),
  });

  app.put(`${PATH}/:document_id/content`, {
    bodyLimit: DOCUMENT_BODY_LIMIT_BYTES,
    schema: {
      tags,
      summary: "Replace a document's Markdown",
      description:
        'Stores the Markdown (at most 10 MiB) and queues the document to be processed again (`status: pending`): its ' +
        'old chunks are deleted at once, so the old text stops answering, in calls under way too; new ones are made from this.',
      params: DocumentParams,
      body: DocumentContentUpdate,
      response: { 200: envelope(DocumentOut), ...notFound, ...tooLarge, ...commonErrors },
    },
    handler: async (request) => ({
      success: true as const,
      message: 'Document content replaced; processing queued',
      data: await replaceDocumentContent(prisma, request.identity.organizationId, request.params.document_id, request.body.content),
    }),
  });
};
