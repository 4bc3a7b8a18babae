// The public face of modules/organizations/: what code outside it (other modules, the API, the call runtime, the benchmarks)
// may use, and nothing else, so its other files can change without a search through both processes. Files inside the
// module import one another directly, never this one (docs/architecture.md, "Import rules").

export { changePassword, getProfile, isSetUp, type Person, setUpOrganization, signIn, updateProfile } from './accounts.js';
export {
  findActiveKey,
  hashApiKey,
  issueApiKey,
  type KeyIdentity,
  listApiKeys,
  listKeysWithCreators,
  revokeApiKey,
  revokeApiKeyById,
  touchApiKeys,
} from './api-keys.js';
export { BillingQuery, BillingSummary, billingSummary } from './billing.js';
export { bootstrap } from './bootstrap.js';
export { acceptInvitation, createInvitation, findInvitation, listInvitations, revokeInvitation } from './invitations.js';
export { changeRole, listMembers, removeMember } from './members.js';
export { AuthenticationAnswer, CeremonyOptions, PasskeyCreate, PasskeyItem } from './passkey-schemas.js';
export {
  deletePasskey,
  listPasskeys,
  passkeyRegistrationOptions,
  passkeySignInOptions,
  registerPasskey,
  type RelyingParty,
  relyingPartyOf,
  signInWithPasskey,
} from './passkeys.js';
export { isResetUsable, requestPasswordReset, resetPassword } from './password-resets.js';
export { invitationMail, resetMail } from './people-mail.js';
export {
  ApiKeyCreate,
  ApiKeyCreated,
  ApiKeyItem,
  Invitation,
  InvitationAccept,
  InvitationCreate,
  InvitationCreated,
  Member,
  PasswordChange,
  Profile,
  ProfileUpdate,
  ResetConfirm,
  ResetRequest,
  RoleChange,
  SessionItem,
  SetupRequest,
  SignInRequest,
} from './people-schemas.js';
export { type Action, assignable, can, requireRole, ROLES } from './roles.js';
export { createSession, endOwnSession, endSession, endSessionsOf, findSession, listSessions, type SessionIdentity } from './sessions.js';
export { OrganizationSettings, OrganizationSettingsUpdate } from './settings-schemas.js';
export { getOrganizationSettings, updateOrganizationSettings } from './settings.js';
export { applyRetention, RETENTION_INTERVAL_MS, startRetentionJob } from './retention.js';
