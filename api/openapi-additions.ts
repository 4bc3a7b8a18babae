// What the zod schemas cannot say about the API, added to its OpenAPI document (api/openapi.ts).
//
// First, the name of every operation, by method and path as the document writes them. A client generated from the
// document names its functions after these, so they are chosen, stable and unique: renaming one breaks every client
// built from an earlier document. A route added without an entry here has no operationId, and
// test/api/openapi.test.ts names it.

export const OPERATION_IDS: Readonly<Record<string, string>> = {
  'POST /api/assistants': 'createAssistant',
  'GET /api/assistants': 'listAssistants',
  'GET /api/assistants/{assistant_id}': 'getAssistant',
  'PATCH /api/assistants/{assistant_id}': 'updateAssistant',
  'DELETE /api/assistants/{assistant_id}': 'deleteAssistant',
  'GET /api/assistants/{assistant_id}/versions': 'listAssistantVersions',
  'GET /api/assistants/{assistant_id}/versions/{version}': 'getAssistantVersion',
  'GET /api/assistants/{assistant_id}/versions/{version}/diff': 'diffAssistantVersions',
  'POST /api/assistants/{assistant_id}/versions/{version}/restore': 'restoreAssistantVersion',
  'GET /api/assistants/{assistant_id}/draft': 'getAssistantDraft',
  'PATCH /api/assistants/{assistant_id}/draft': 'updateAssistantDraft',
  'DELETE /api/assistants/{assistant_id}/draft': 'discardAssistantDraft',
  'POST /api/assistants/{assistant_id}/draft/publish': 'publishAssistantDraft',
  'POST /api/assistants/{assistant_id}/test-runs': 'createAssistantTestRun',

  'POST /api/tools': 'createTool',
  'GET /api/tools': 'listTools',
  'GET /api/tools/{tool_id}': 'getTool',
  'PATCH /api/tools/{tool_id}': 'updateTool',
  'DELETE /api/tools/{tool_id}': 'deleteTool',
  'POST /api/tools/{tool_id}/test': 'testTool',
  'GET /api/tools/{tool_id}/mcp-tools': 'listMcpServerTools',

  'POST /api/playbooks': 'createPlaybook',
  'GET /api/playbooks': 'listPlaybooks',
  'GET /api/playbooks/{playbook_id}': 'getPlaybook',
  'PATCH /api/playbooks/{playbook_id}': 'updatePlaybook',
  'DELETE /api/playbooks/{playbook_id}': 'deletePlaybook',
  'POST /api/playbooks/{playbook_id}/test-runs': 'createPlaybookTestRun',

  'GET /api/test-runs': 'listTestRuns',
  'GET /api/test-runs/{test_run_id}': 'getTestRun',
  'POST /api/test-runs/{test_run_id}/cancel': 'cancelTestRun',

  'POST /api/documents': 'createDocument',
  'GET /api/documents': 'listDocuments',
  'POST /api/documents/upload': 'uploadDocument',
  'POST /api/documents/search': 'searchDocuments',
  'GET /api/documents/{document_id}': 'getDocument',
  'PATCH /api/documents/{document_id}': 'updateDocument',
  'DELETE /api/documents/{document_id}': 'deleteDocument',
  'POST /api/documents/{document_id}/process': 'processDocument',
  'GET /api/documents/{document_id}/content': 'getDocumentContent',
  'PUT /api/documents/{document_id}/content': 'replaceDocumentContent',

  'POST /api/contacts': 'createContact',
  'GET /api/contacts': 'listContacts',
  'POST /api/contacts/import': 'importContacts',
  'GET /api/contacts/{contact_id}': 'getContact',
  'PATCH /api/contacts/{contact_id}': 'updateContact',
  'DELETE /api/contacts/{contact_id}': 'deleteContact',
  'POST /api/contact-properties': 'createContactProperty',
  'GET /api/contact-properties': 'listContactProperties',
  'GET /api/contact-properties/{property_id}': 'getContactProperty',
  'PATCH /api/contact-properties/{property_id}': 'updateContactProperty',
  'DELETE /api/contact-properties/{property_id}': 'deleteContactProperty',

  'GET /api/calls': 'listCalls',
  'GET /api/calls/export': 'exportCalls',
  'GET /api/calls/{call_sid}': 'getCall',
  'GET /api/calls/{call_sid}/transcript': 'getCallTranscript',
  'GET /api/calls/{call_sid}/recordings/{track}': 'getCallRecording',
  'POST /api/telephony/calls/initiate': 'initiateCall',
  'POST /api/web-calls': 'createWebCall',
  'POST /api/web-calls/browser': 'createBrowserCall',

  'POST /api/widget-keys': 'createWidgetKey',
  'GET /api/widget-keys': 'listWidgetKeys',
  'GET /api/widget-keys/{widget_key_id}': 'getWidgetKey',
  'PATCH /api/widget-keys/{widget_key_id}': 'updateWidgetKey',
  'DELETE /api/widget-keys/{widget_key_id}': 'revokeWidgetKey',
  'GET /api/widget/{widget_key}': 'getWidgetSettings',
  'POST /api/widget/{widget_key}/calls': 'createWidgetCall',

  'POST /api/phone-connections': 'createPhoneConnection',
  'GET /api/phone-connections': 'listPhoneConnections',
  'GET /api/phone-connections/{connection_id}': 'getPhoneConnection',
  'PATCH /api/phone-connections/{connection_id}': 'updatePhoneConnection',
  'DELETE /api/phone-connections/{connection_id}': 'deletePhoneConnection',
  'POST /api/phone-numbers': 'createPhoneNumber',
  'GET /api/phone-numbers': 'listPhoneNumbers',
  'GET /api/phone-numbers/{number_id}': 'getPhoneNumber',
  'PATCH /api/phone-numbers/{number_id}': 'updatePhoneNumber',
  'DELETE /api/phone-numbers/{number_id}': 'deletePhoneNumber',

  'POST /api/campaigns': 'createCampaign',
  'GET /api/campaigns': 'listCampaigns',
  'GET /api/campaigns/{campaign_id}': 'getCampaign',
  'PUT /api/campaigns/{campaign_id}': 'updateCampaign',
  'DELETE /api/campaigns/{campaign_id}': 'deleteCampaign',
  'POST /api/campaigns/{campaign_id}/start': 'startCampaign',
  'POST /api/campaigns/{campaign_id}/pause': 'pauseCampaign',
  'POST /api/campaigns/{campaign_id}/resume': 'resumeCampaign',
  'POST /api/campaigns/{campaign_id}/cancel': 'cancelCampaign',
  'GET /api/campaigns/{campaign_id}/progress': 'getCampaignProgress',
  'POST /api/campaigns/{campaign_id}/contacts': 'addCampaignContacts',
  'GET /api/campaigns/{campaign_id}/contacts': 'listCampaignContacts',
  'POST /api/campaigns/{campaign_id}/contacts/import': 'importCampaignContacts',

  'GET /api/analytics/charts': 'listCharts',
  'POST /api/analytics/charts': 'createChart',
  'GET /api/analytics/charts/{chart_id}': 'getChart',
  'PUT /api/analytics/charts/{chart_id}': 'updateChart',
  'DELETE /api/analytics/charts/{chart_id}': 'deleteChart',
  'POST /api/analytics/charts/{chart_id}/query': 'queryChart',
  'GET /api/analytics/charts/{chart_id}/export': 'exportChart',
  'POST /api/analytics/query': 'queryAnalytics',
  'GET /api/analytics/prices': 'getPrices',
  'POST /api/mcp': 'mcp',
  'PUT /api/analytics/prices': 'updatePrices',

  'GET /api/organization/settings': 'getOrganizationSettings',
  'PATCH /api/organization/settings': 'updateOrganizationSettings',
  'GET /api/organization/data-deletions': 'listDataDeletions',
  'GET /api/billing': 'getBilling',
  'GET /api/organization/api-keys': 'listApiKeys',
  'POST /api/organization/api-keys': 'createApiKey',
  'DELETE /api/organization/api-keys/{key_id}': 'revokeApiKey',
  'GET /api/organization/members': 'listMembers',
  'PATCH /api/organization/members/{user_id}': 'updateMember',
  'DELETE /api/organization/members/{user_id}': 'removeMember',
  'GET /api/organization/invitations': 'listInvitations',
  'POST /api/organization/invitations': 'createInvitation',
  'DELETE /api/organization/invitations/{invitation_id}': 'deleteInvitation',
  'POST /api/organization/webhooks': 'createWebhookEndpoint',
  'GET /api/organization/webhooks': 'listWebhookEndpoints',
  'GET /api/organization/webhooks/{endpoint_id}': 'getWebhookEndpoint',
  'PATCH /api/organization/webhooks/{endpoint_id}': 'updateWebhookEndpoint',
  'DELETE /api/organization/webhooks/{endpoint_id}': 'deleteWebhookEndpoint',
  'POST /api/organization/webhooks/{endpoint_id}/rotate-secret': 'rotateWebhookEndpointSecret',
  'GET /api/organization/webhooks/{endpoint_id}/deliveries': 'listWebhookDeliveries',
  'POST /api/organization/webhooks/{endpoint_id}/deliveries/{delivery_id}/redeliver': 'redeliverWebhookDelivery',

  'GET /api/users/me': 'getCurrentUser',
  'PATCH /api/users/me': 'updateCurrentUser',
  'PUT /api/users/me/password': 'changePassword',
  'GET /api/users/me/sessions': 'listSessions',
  'DELETE /api/users/me/sessions': 'endOtherSessions',
  'DELETE /api/users/me/sessions/{session_id}': 'endSession',
  'GET /api/users/me/passkeys': 'listPasskeys',
  'POST /api/users/me/passkeys': 'createPasskey',
  'POST /api/users/me/passkeys/options': 'createPasskeyOptions',
  'DELETE /api/users/me/passkeys/{passkey_id}': 'deletePasskey',
};

/** The OpenAPI path of a Fastify route path: `/api/calls/:call_sid` is `/api/calls/{call_sid}`. */
export function openApiPath(url: string): string {
  return url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

const text = { type: 'string' };
const audio = { type: 'string', format: 'binary' };

/**
 * The operations that answer a file rather than JSON: each success response with the media types it is sent as, so a
 * generated client reads it as text or bytes instead of parsing JSON.
 */
export const DOWNLOADS: Readonly<Record<string, Record<string, { description: string; content: Record<string, { schema: object }> }>>> = {
  exportCalls: {
    200: { description: 'The calls, as CSV or JSON Lines (`format`)', content: { 'text/csv': { schema: text }, 'application/x-ndjson': { schema: text } } },
  },
  exportChart: {
    200: {
      description: "The chart's result, as CSV or as the JSON of the query answer (`format`), as an attachment",
      content: { 'text/csv': { schema: text }, 'application/json': { schema: { type: 'object' } } },
    },
  },
  getCallRecording: {
    200: { description: 'The audio file', content: { 'audio/mpeg': { schema: audio }, 'audio/wav': { schema: audio } } },
    206: { description: 'The requested range of it', content: { 'audio/mpeg': { schema: audio }, 'audio/wav': { schema: audio } } },
  },
};

/**
 * Request bodies the route reads itself rather than through a validated schema (a multipart file): described here so
 * that the document still says what to send.
 */
export const REQUEST_BODIES: Readonly<Record<string, object>> = {
  uploadDocument: {
    type: 'object',
    required: ['file'],
    properties: {
      name: { type: 'string', description: "The document's name; the file's name otherwise. Sent before the file." },
      media_type: { type: 'string', description: "The file's type, when its part does not say or says wrong. Sent before the file." },
      file: { type: 'string', format: 'binary', description: 'PDF, Word .docx, HTML, CSV, Markdown or plain text, at most 10 MiB' },
    },
  },
};

/** What every answer to an API key carries (api/http/rate-limit.ts, draft-ietf-httpapi-ratelimit-headers). */
export const RATE_LIMIT_HEADERS = {
  'RateLimit-Limit': { type: 'integer', description: 'Requests the limit closest to running out allows in its window' },
  'RateLimit-Remaining': { type: 'integer', description: 'What is left of it in this window' },
  'RateLimit-Reset': { type: 'integer', description: 'Seconds until its window ends' },
  'RateLimit-Policy': { type: 'string', description: 'Both limits and their windows, e.g. `100;w=1, 50;w=1`' },
} as const;

/** A refusal of a limit: when to try again. */
export const RETRY_AFTER_HEADER = { 'Retry-After': { type: 'integer', description: 'Seconds to wait before sending again' } } as const;

/** A refused key: the challenge of RFC 6750. */
export const WWW_AUTHENTICATE_HEADER = {
  'WWW-Authenticate': { type: 'string', description: 'The bearer challenge, with the error: `Bearer realm="api", error="invalid_token"`' },
} as const;
