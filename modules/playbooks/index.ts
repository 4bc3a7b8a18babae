// The public face of modules/playbooks/: what code outside it (other modules, the API, the call runtime, the benchmarks)
// may use, and nothing else, so its other files can change without a search through both processes. Files inside the
// module import one another directly, never this one (docs/architecture.md, "Import rules").

export { type CallPlaybook, loadCallPlaybooks, loadPlaybookForRun } from './call-playbooks.js';
export { coerceValue, type CollectedValue, collectSchema } from './collect.js';
export { type CollectFieldIn, Playbook, PlaybookCreate, type PlaybookOut, PlaybookParams, PlaybookUpdate } from './schemas.js';
export { createPlaybook, deletePlaybook, getPlaybook, listPlaybooks, updatePlaybook } from './service.js';
