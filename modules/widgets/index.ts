// The public face of modules/widgets/: what code outside it (the API and its dashboard) may use, and nothing else, so
// its other files can change without a search through both processes. Files inside the module import one another
// directly, never this one (docs/architecture.md, "Import rules").

export { originAllowed, parseOrigin } from './origins.js';
export {
  DEFAULT_MAX_CONCURRENT_CALLS,
  DEFAULT_RATE_LIMIT_PER_MINUTE,
  WidgetCall,
  WidgetCallCreate,
  WidgetKey,
  WidgetKeyCreate,
  type WidgetKeyOut,
  WidgetKeyParams,
  WidgetKeyUpdate,
  WidgetPublicParams,
  WidgetSettings,
} from './schemas.js';
export { createWidgetKey, getWidgetKey, listWidgetKeys, revokeWidgetKey, updateWidgetKey } from './service.js';
export { findLiveWidgetKey, framingOriginsOfCall, type LiveWidgetKey, openWidgetCall, widgetCallsUnderWay } from './widget-calls.js';
