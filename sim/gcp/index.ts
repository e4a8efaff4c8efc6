// A local Google Compute Engine endpoint for tests and `npm start`; never imported by production code.
// Usage: const emu = await startGceEmulator({ bootDelayMs: 100 });
//        new InstancesClient({ ...emu.clientOptions(), authClient: new PassThroughClient() })
//        gcloud: api_endpoint_overrides/compute = emu.apiRoot, auth/disable_credentials = true (with requireAuth:
//        auth/token_host = <endpoint>/token and activate-service-account with a known key, as the README shows)
//        Credentials: EMULATOR_SERVICE_ACCOUNT_KEY is known by default; requireAuth makes Compute calls need it
//        Resource Manager tags: GET `${emu.endpoint}/v3/tagValues/namespaced?name=...` (seed with emu.addTagValue)
export {
  startGceEmulator,
  API_PREFIX,
  type GceEmulator,
  type GceEmulatorOptions,
  type InstanceLocation,
} from './gce-emulator.js';
export {
  defaultWorld,
  DEFAULT_PROJECT,
  DEFAULT_ZONES,
  DEFAULT_CLUSTER_ID,
  type DefaultWorldOptions,
} from './default-world.js';
export { DEFAULT_TIMINGS, VIEW_GET, VIEW_LIST, type GceTimings } from './gce-state.js';
export {
  DEFAULT_MACHINE_TYPES,
  DEFAULT_ACCELERATOR_TYPES,
  DEFAULT_IMAGES,
  DEFAULT_DISK_TYPES,
  DEFAULT_QUOTA_LIMITS,
} from './catalog-tables.js';
export { toEmulatedInstance, internalDnsName } from './instance-view.js';
export { parseFilter, type FilterPredicate } from './filter.js';
export { SELF_LINK_BASE } from './links.js';
export type { ThrottleStatus } from './wire.js';
export type * from './model.js';
export { TokenService, OAUTH_TOKEN_PATH, STS_TOKEN_PATH, type TokenCalls, type TokenKind } from './token-service.js';
export {
  EMULATOR_SERVICE_ACCOUNT_KEY,
  ServiceAccountKeys,
  type JwtCheck,
  type ServiceAccountKeyInput,
} from './service-account-keys.js';
