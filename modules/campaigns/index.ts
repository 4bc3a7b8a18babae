// The public face of modules/campaigns/: what code outside it (other modules, the API, the call runtime, the benchmarks)
// may use, and nothing else, so its other files can change without a search through both processes. Files inside the
// module import one another directly, never this one (docs/architecture.md, "Import rules").

export { addCampaignContacts, importCampaignContacts, listCampaignContacts } from './contacts.js';
export { campaignDialPacing } from './dial-pacing.js';
export { campaignTick, startCampaignDispatcher } from './dispatcher.js';
export {
  beepBy,
  decide,
  DEFAULT_DETECTOR,
  greetingEnd,
  type HeardBeep,
  type HeardText,
  type MachineDetectorSettings,
  type Observed,
  type SpeechSegment,
  type Verdict,
} from './machine-detector.js';
export {
  Campaign,
  CAMPAIGN_STATES,
  CampaignContact,
  CampaignContactsAdd,
  CampaignContactsAdded,
  type CampaignOut,
  CampaignParams,
  CampaignProgress,
  CampaignWrite,
} from './schemas.js';
export { type CampaignAction, createCampaign, deleteCampaign, getCampaign, listCampaigns, replaceCampaign, transitionCampaign } from './service.js';
