// The public face of modules/assistants/: what code outside it (other modules, the API, the call runtime, the benchmarks)
// may use, and nothing else, so its other files can change without a search through both processes. Files inside the
// module import one another directly, never this one (docs/architecture.md, "Import rules").

export { requireActiveAssistant } from './active.js';
export { AssistantReadCache } from './cache.js';
export { credentialOfStage, missingCredentials, MissingCredentialsError, unusableStages } from './credentials.js';
export { sealClearAssistantKeys } from './keys.js';
export { Assistant, AssistantCreate, AssistantParams, AssistantUpdate } from './schemas.js';
export {
  assistantName,
  createAssistant,
  deleteAssistant,
  discardAssistantDraft,
  getAssistantDraft,
  listAssistants,
  publishAssistantDraft,
  readAssistantJson,
  restoreAssistantVersion,
  saveAssistantDraft,
  updateAssistant,
} from './service.js';
export { assistantFields, AssistantSettings, baseLanguage, DEFAULT_IDLE_MESSAGE, DEFAULT_SYSTEM_PROMPT } from './settings.js';
export { loadAssistantSettings, loadAssistantVersioned } from './store.js';
export { MAX_VARIABLE_LENGTH, renderPrompt, renderTemplate, sanitizeValue, type TemplateValues } from './templates.js';
export { refusedVendorUrls } from './vendor-urls.js';
export {
  DEFAULT_LLM_MODEL,
  DEFAULT_REALTIME_MODELS,
  DEFAULT_STT_MODEL,
  LLM_PROVIDERS,
  REALTIME_PROVIDERS,
  TTS_PROVIDERS,
  type LlmProvider,
  type RealtimeProvider,
  type SttProvider,
  type TtsProvider,
} from './vendors.js';
export { STARTERS, starterById, type Starter } from './starters.js';
export { DEFAULT_VOICE, VOICES, type Voice } from './voices.js';
export { VoiceCatalogue, type CatalogueAnswer, type CatalogueRequest } from './voice-catalogue/catalogue.js';
export type { PreviewAudio } from './voice-catalogue/preview.js';
export type { CatalogueVoice } from './voice-catalogue/types.js';
export {
  AssistantDraft,
  AssistantVersion,
  AssistantVersionDiff,
  AssistantVersionSummary,
  diffAssistantVersions,
  getAssistantVersion,
  listAssistantVersions,
  VersionDiffQuery,
  VersionParams,
  type VersionActor,
} from './versions.js';
