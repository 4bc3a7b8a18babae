import { createConfig, lintFromString } from '@redocly/openapi-core';
import { describe, expect } from 'vitest';
import { OPERATION_IDS } from '../../api/openapi-additions.js';
import { apiTest as it } from '../helpers/fixtures.js';

describe('the OpenAPI description', () => {
  let doc: any;
  it.beforeAll(async ({ api }) => {
    const res = await api.call(null, 'GET', '/api/openapi.json');
    expect(res.status).toBe(200);
    doc = res.body;
  });

  it('is OpenAPI 3.1.0 at version 0.1.0, served without a key', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('0.1.0');
  });

  it('names every operation with its own operationId, in camelCase, and says which server answers', () => {
    const ids: string[] = [];
    const unnamed: string[] = [];
    for (const [path, operations] of Object.entries(doc.paths as Record<string, Record<string, { operationId?: string }>>)) {
      for (const [method, operation] of Object.entries(operations)) {
        if (operation.operationId) ids.push(operation.operationId);
        else unnamed.push(`${method.toUpperCase()} ${path}`);
      }
    }
    expect(unnamed).toEqual([]);
    expect(ids.length).toBe(Object.keys(OPERATION_IDS).length);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[a-z][A-Za-z]+$/);
    expect(doc.paths['/api/calls/{call_sid}/transcript'].get.operationId).toBe('getCallTranscript');
    expect(doc.servers).toEqual([{ url: '/', description: 'This service' }]);
  });

  it('marks every timestamp (a property named *_at) as a date-time', () => {
    const untyped: string[] = [];
    const isDateTime = (schema: any): boolean =>
      schema?.format === 'date-time' || (Array.isArray(schema?.anyOf) && schema.anyOf.some((s: any) => s.format === 'date-time'));
    const walk = (node: unknown, where: string): void => {
      if (Array.isArray(node)) return node.forEach((item, i) => walk(item, `${where}[${i}]`));
      if (node === null || typeof node !== 'object') return;
      const properties = (node as { properties?: Record<string, unknown> }).properties;
      if (properties && typeof properties === 'object') {
        for (const [name, schema] of Object.entries(properties)) if (name.endsWith('_at') && !isDateTime(schema)) untyped.push(`${where}.${name}`);
      }
      for (const [key, value] of Object.entries(node)) walk(value, `${where}.${key}`);
    };
    walk(doc, '$');
    expect(untyped).toEqual([]);
  });

  it('declares the downloads with the media types they are sent as, not as JSON', () => {
    const typesOf = (path: string, status = '200') => Object.keys(doc.paths[path].get.responses[status].content).sort();
    expect(typesOf('/api/calls/export')).toEqual(['application/x-ndjson', 'text/csv']);
    expect(typesOf('/api/analytics/charts/{chart_id}/export')).toEqual(['application/json', 'text/csv']);
    expect(typesOf('/api/calls/{call_sid}/recordings/{track}')).toEqual(['audio/mpeg', 'audio/wav']);
    expect(typesOf('/api/calls/{call_sid}/recordings/{track}', '206')).toEqual(['audio/mpeg', 'audio/wav']);
    expect(doc.paths['/api/calls/{call_sid}/recordings/{track}'].get.responses['200'].content['audio/mpeg'].schema).toMatchObject({ format: 'binary' });
    // Their errors stay JSON.
    expect(Object.keys(doc.paths['/api/calls/export'].get.responses['422'].content)).toEqual(['application/json']);
  });

  it('describes the document upload as the multipart body it reads: a file part, and its name and type', () => {
    const body = doc.paths['/api/documents/upload'].post.requestBody;
    expect(Object.keys(body.content)).toEqual(['multipart/form-data']);
    const schema = body.content['multipart/form-data'].schema;
    expect(schema.required).toEqual(['file']);
    expect(schema.properties.file).toMatchObject({ type: 'string', format: 'binary' });
    expect(Object.keys(schema.properties).sort()).toEqual(['file', 'media_type', 'name']);
  });

  it("declares the rate limit's headers on every answer to a key, its 429 with Retry-After, and the 401's challenge", () => {
    const keyed = doc.paths['/api/calls'].get.responses;
    expect(Object.keys(keyed['200'].headers).sort()).toEqual(['RateLimit-Limit', 'RateLimit-Policy', 'RateLimit-Remaining', 'RateLimit-Reset']);
    expect(Object.keys(keyed['429'].headers)).toContain('Retry-After');
    expect(keyed['429'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ErrorResponse' });
    expect(Object.keys(keyed['401'].headers)).toEqual(['WWW-Authenticate']);
    // Every operation a key may call can be refused by its limits.
    for (const [path, operations] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      for (const [method, operation] of Object.entries(operations)) {
        const byKey = (operation.security ?? doc.security).some((s: Record<string, unknown>) => 'bearer' in s);
        if (byKey) expect(operation.responses['429'], `${method} ${path}`).toBeDefined();
      }
    }
    // A dashboard session's own functions are not counted against a key's limits.
    expect(doc.paths['/api/users/me'].get.responses['429']).toBeUndefined();
  });

  it("passes Redocly's recommended rules with no error and no warning, the license rule aside (docs/api.md)", async () => {
    const config = await createConfig({ extends: ['recommended'], rules: { 'info-license': 'off' } });
    const problems = await lintFromString({ source: JSON.stringify(doc), absoluteRef: 'openapi.json', config });
    expect(problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? ''}`)).toEqual([]);
  });

  it('declares HTTP bearer security for every operation', () => {
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.security).toEqual([{ bearer: [] }]);
  });

  it('lists the 422 validation error on every route that validates input', () => {
    const operations = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops as Record<string, any>).map(([method, op]) => ({ path, method, op })),
    );
    const validating = operations.filter(({ op }) => op.parameters?.length || op.requestBody);
    expect(validating.length).toBeGreaterThanOrEqual(5);
    for (const { path, method, op } of validating) {
      expect(op.responses['422'], `${method} ${path}`).toBeDefined();
      const schema = op.responses['422'].content['application/json'].schema;
      expect(JSON.stringify(schema)).toMatch(/HTTPValidationError/);
    }
  });

  it('describes the 422 body exactly as the spec does', () => {
    const item = doc.components.schemas.ValidationErrorItem;
    expect(item.required.sort()).toEqual(['loc', 'msg', 'type']);
    expect(item.properties.loc.items.anyOf.map((s: { type: string }) => s.type).sort()).toEqual(['integer', 'string']);
  });

  it('documents the assistant with its required fields and every settings default', () => {
    const assistant = doc.components.schemas.Assistant;
    expect(assistant.required).toEqual(expect.arrayContaining(['name', 'id', 'organization_id', 'user_id', 'created_at', 'updated_at']));
    const stt = doc.components.schemas.STTSettings.properties;
    expect(stt.endpoint_latency_adjustment_level.anyOf[0]).toMatchObject({ type: 'integer', minimum: 0, maximum: 3 });
    expect(stt.endpoint_sensitivity.anyOf[0]).toMatchObject({ type: 'number', minimum: -1, maximum: 1 });
    expect(doc.components.schemas.TurnDetectionSettings.properties.mode.enum).toEqual(['turn_detector', 'text_turn_detector']);
    expect(doc.components.schemas.LLMSettings.properties.temperature.default).toBe(0.5);
  });

  it('documents path ids and paging parameters as bounded integers', () => {
    const get = doc.paths['/api/assistants/{assistant_id}'].get;
    expect(get.parameters[0]).toMatchObject({ in: 'path', name: 'assistant_id', required: true, schema: { type: 'integer', minimum: 1 } });
    const list = doc.paths['/api/assistants'].get;
    expect(list.parameters.find((p: { name: string }) => p.name === 'per_page').schema).toMatchObject({ type: 'integer', maximum: 100 });
  });

  it('has an interactive docs page', async ({ api }) => {
    const res = await api.app.inject({ method: 'GET', url: '/api/docs/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.body).toMatch(/swagger/i);
  });
});
