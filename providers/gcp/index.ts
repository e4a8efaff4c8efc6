// The GCP provider: actuator, scale-from-zero catalog, providerSpec types. cmd/ and tests import this.
export { createGcpActuator, type GcpActuator, type GcpActuatorOptions } from './actuator.js';
export {
  createGcpInstanceTypeCatalog,
  GcpInstanceTypeCatalog,
  toInstanceTypeInfo,
  architectureOf,
  gpuResourceOf,
  ARM64_FAMILIES,
  INSTANCE_TYPE_CACHE_TTL_MS,
  type GcpInstanceTypeCatalogOptions,
} from './instance-types.js';
export {
  PreemptionNoticeSource,
  PREEMPTED_PATH,
  metadataBaseOf,
  type PreemptionNoticeOptions,
} from './preemption-notice.js';
export {
  GcpClientFactory,
  DEFAULT_GCE_RATE_LIMITS,
  MAX_NAMES_PER_LIST,
  nameFilter,
  authOptions,
  type GcpClientFactoryOptions,
  type GcpClients,
} from './gcp-clients.js';
export {
  isOperationDone,
  throwIfOperationFailed,
  type ComputeApi,
  type CallOptions,
  type Instance,
  type Operation,
  type MachineType,
} from './compute-api.js';
export { SdkComputeApi, gaxEndpointOptions, type SdkComputeApiOptions } from './sdk-compute-api.js';
export {
  classifyGceError,
  isRetryableGceError,
  describeGceError,
  gceHttpStatus,
  gceErrorReasons,
  GceOperationError,
  type GceErrorClass,
} from './errors.js';
export {
  credentialsFromSecret,
  credentialsFingerprint,
  CredentialsSecretError,
  SERVICE_ACCOUNT_KEY,
  type GcpCredentials,
} from './credentials.js';
export {
  TagResolver,
  mergeTags,
  restTagValueLookup,
  type TagValue,
  type TagValueLookup,
} from './resource-manager-tags.js';
export { BootImageChecker, parseImageRef, ImageReferenceError, type ImageRef } from './boot-image.js';
export * from './provider-spec.js';
export {
  validateProviderSpec,
  MAX_USER_LABELS,
  MAX_RESOURCE_MANAGER_TAGS,
  type ValidationResult,
} from './provider-spec-validation.js';
export {
  buildInstance,
  buildLabels,
  addressesOf,
  machineLabelsFor,
  providerIdOf,
  instanceSelfLink,
  requestIdFor,
  deleteRequestIdFor,
  clusterIdOf,
  clusterLabelKey,
  userDataItem,
  SELF_LINK_BASE,
  type InstanceInputs,
} from './instances.js';
export { gcpMachineAdmission, GCP_PLATFORM, DEFAULT_DISK_IMAGE_AMD64, DEFAULT_DISK_IMAGE_ARM64 } from './admission.js';
export { gcpProvider } from './descriptor.js';
