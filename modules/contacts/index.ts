// The public face of modules/contacts/: what code outside it (other modules, the API, the call runtime, the benchmarks)
// may use, and nothing else, so its other files can change without a search through both processes. Files inside the
// module import one another directly, never this one (docs/architecture.md, "Import rules").

export { normalizeEmail } from './email.js';
export { importContacts } from './import.js';
export {
  createContactProperty,
  deleteContactProperty,
  getContactProperty,
  listContactProperties,
  loadPropertyDefs,
  updateContactProperty,
} from './properties.js';
export { ContactProperty, ContactPropertyCreate, type ContactPropertyOut, ContactPropertyParams, ContactPropertyUpdate } from './property-schemas.js';
export {
  Contact,
  CONTACT_SOURCES,
  ContactCreate,
  contactFields,
  ContactImportBody,
  ContactList,
  ContactListQuery,
  ContactParams,
  ContactUpdate,
  CUSTOM_FILTER_PREFIX,
  IMPORT_BODY_LIMIT_BYTES,
  ImportReport,
  type ImportReportOut,
  MAX_IMPORT_ROWS,
  storableText,
} from './schemas.js';
export { type ContactFilters, contactWhere, createContact, deleteContact, getContact, listContacts, updateContact } from './service.js';
export { canonicalTimeZone } from './timezone.js';
