import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { PrismaClient } from '../../prisma/client.js';
import { commonErrors, envelope, ErrorResponse, pagedEnvelope } from '../schemas/common.js';
import {
  AssistantTestRunParams,
  cancelTestRun,
  createAssistantTestRun,
  createPlaybookTestRun,
  getTestRun,
  listTestRuns,
  PlaybookTestRunCreate,
  PlaybookTestRunParams,
  TestRun,
  TestRunCreate,
  TestRunListQuery,
  TestRunParams,
} from '../../modules/test-runs/index.js';

const tags = ['Test runs'];
const tooMany = { 409: ErrorResponse.describe('`limit_reached`: the organisation has 100 runs queued or running') };
const runMissing = { 404: ErrorResponse.describe('No such test run in this organisation') };
const QUEUED =
  'Answers 202 with the run, `queued`: an agent worker runs it as a text conversation (no audio, no phone) and the ' +
  'run is read back with GET until its status is `completed`, `failed` or `cancelled`; `test_run.completed` is sent ' +
  'to webhooks when it ends. Tools are mocked unless `use_real_tools` says otherwise. See docs/test-runs.md.';

export const testRunRoutes: FastifyPluginAsyncZod<{ prisma: PrismaClient }> = async (app, { prisma }) => {
  app.post('/assistants/:assistant_id/test-runs', {
    schema: {
      tags,
      summary: 'Test an assistant in text',
      description: `A scripted or simulated conversation with the assistant, repeated \`repeat\` times, judged by \`assertions\`. ${QUEUED}`,
      params: AssistantTestRunParams,
      body: TestRunCreate,
      response: { 202: envelope(TestRun), 404: ErrorResponse.describe('No such assistant in this organisation'), ...tooMany, ...commonErrors },
    },
    handler: async (request, reply) => {
      const data = await createAssistantTestRun(prisma, request.identity.organizationId, request.params.assistant_id, request.body);
      return reply.status(202).send({ success: true as const, message: 'Test run queued', data });
    },
  });

  app.post('/playbooks/:playbook_id/test-runs', {
    schema: {
      tags,
      summary: 'Test a playbook in text',
      description:
        'The conversation starts inside the playbook, run in the assistant `assistant_id` names (default: the first ' +
        `assistant, by id, the playbook is assigned to; 422 when there is none). ${QUEUED}`,
      params: PlaybookTestRunParams,
      body: PlaybookTestRunCreate,
      response: { 202: envelope(TestRun), 404: ErrorResponse.describe('No such playbook in this organisation'), ...tooMany, ...commonErrors },
    },
    handler: async (request, reply) => {
      const data = await createPlaybookTestRun(prisma, request.identity.organizationId, request.params.playbook_id, request.body);
      return reply.status(202).send({ success: true as const, message: 'Test run queued', data });
    },
  });

  app.get('/test-runs', {
    schema: {
      tags,
      summary: 'List test runs',
      description: 'Newest first, filtered by `assistant_id`, `playbook_id` and `status` (repeat to widen). `per_page` defaults to 20, at most 100.',
      querystring: TestRunListQuery,
      response: { 200: pagedEnvelope(TestRun), ...commonErrors },
    },
    handler: async (request) => {
      const { page, per_page, ...filters } = request.query;
      return {
        success: true as const,
        message: 'Test runs retrieved',
        ...(await listTestRuns(prisma, request.identity.organizationId, filters, page, per_page)),
      };
    },
  });

  app.get('/test-runs/:test_run_id', {
    schema: { tags, summary: 'Get a test run', params: TestRunParams, response: { 200: envelope(TestRun), ...runMissing, ...commonErrors } },
    handler: async (request) => ({
      success: true as const,
      message: 'Test run retrieved',
      data: await getTestRun(prisma, request.identity.organizationId, request.params.test_run_id),
    }),
  });

  app.post('/test-runs/:test_run_id/cancel', {
    schema: {
      tags,
      summary: 'Cancel a test run',
      description: 'A queued run is never started; a running one stops at once, keeping the repetitions it finished. 409 when the run has already finished.',
      params: TestRunParams,
      response: { 200: envelope(TestRun), 409: ErrorResponse.describe('The run has finished'), ...runMissing, ...commonErrors },
    },
    handler: async (request) => ({
      success: true as const,
      message: 'Test run cancelled',
      data: await cancelTestRun(prisma, request.identity.organizationId, request.params.test_run_id),
    }),
  });
};
