// The public face of modules/webhooks/: what code outside it (other modules, the API, the call runtime, the benchmarks)
// may use, and nothing else, so its other files can change without a search through both processes. Files inside the
// module import one another directly, never this one (docs/architecture.md, "Import rules").

export { startWebhookDelivery } from './delivery-worker.js';
export {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  getWebhookEndpoint,
  listWebhookDeliveryAttempts,
  listWebhookEndpoints,
  redeliverWebhook,
  rotateWebhookSecret,
  sealClearWebhookSecrets,
  updateWebhookEndpoint,
  type WebhookPolicy,
} from './endpoints.js';
export { EVENT_TYPES, recordEvent } from './events.js';
export { signedHeaders } from './signing.js';
export {
  DEFAULT_DELIVERY_LIMIT,
  DeliveriesQuery,
  DeliveryParams,
  EndpointParams,
  RotateSecretBody,
  WebhookDelivery,
  WebhookDeliveryAttempt,
  WebhookEndpoint,
  WebhookEndpointCreate,
  WebhookEndpointUpdate,
  WebhookEndpointWithSecret,
} from './schemas.js';
