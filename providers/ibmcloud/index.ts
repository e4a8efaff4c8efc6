// The IBM Cloud VPC provider: actuator, scale-from-zero catalog, providerSpec types, and the small typed VPC
// client they use. cmd/ and tests import this.
export { createIbmCloudActuator, type IbmCloudActuator, type IbmCloudActuatorOptions } from './actuator.js';
export {
  createIbmCloudInstanceTypeCatalog,
  IbmCloudInstanceTypeCatalog,
  toInstanceTypeInfo,
  architectureOf,
  gpuResourceOf,
  profileValue,
  INSTANCE_TYPE_CACHE_TTL_MS,
  type IbmCloudInstanceTypeCatalogOptions,
} from './instance-types.js';
export {
  IbmClientFactory,
  PROFILE_CACHE_TTL_MS,
  type IbmClientFactoryOptions,
  type IbmClients,
  type IbmEndpoints,
  type InstanceKey,
} from './ibm-clients.js';
export { MeteredVpcApi, DEFAULT_RETRY_POLICY, type RetryPolicy, type Meter } from './metered-vpc-api.js';
export { NameResolver, ResourceGroupNotFoundError, RESOLUTION_CACHE_TTL_MS } from './name-resolver.js';
export { DEFAULT_IBM_RATE_LIMITS } from './rate-limiter.js';
export {
  looksStuck,
  mergesMachineConfigServer,
  MachineReplacementConditionType,
  ReplacementRequestedReason,
  ReplacementCompletedReason,
  STUCK_MACHINE_TIMEOUT_MS,
} from './stuck-machine.js';
export {
  classifyVpcError,
  isRetryableVpcError,
  describeVpcError,
  NAME_TAKEN_CODE,
  type VpcErrorClass,
} from './errors.js';
export { apiKeyFromSecret, apiKeyFingerprint, CredentialsSecretError } from './credentials.js';
export * from './provider-spec.js';
export { validateProviderSpec, VPC_NAME, MAX_TAG_LENGTH, type ValidationResult } from './provider-spec-validation.js';
export {
  buildInstancePrototype,
  addressesOf,
  machineLabelsFor,
  providerIdOf,
  tagNamesOf,
  clusterIdOf,
  instanceNameOf,
  UNALLOCATED_IP,
  type ResolvedIds,
} from './instances.js';
export {
  createVpcClient,
  normalizeVpcServiceUrl,
  VpcClientConfigError,
  DEFAULT_VPC_URL,
  DEFAULT_IAM_URL,
  DEFAULT_RESOURCE_MANAGER_URL,
  DEFAULT_GLOBAL_TAGGING_URL,
  DEFAULT_VPC_API_VERSION,
  type VpcApi,
  type VpcClientOptions,
  type CallOptions,
} from './vpc-api.js';
export { VpcApiError, isVpcApiError, type IbmService } from './vpc-api-error.js';
export type * from './vpc-types.js';
export { ibmCloudMachineAdmission, IBMCLOUD_PLATFORM } from './admission.js';
export { ibmCloudProvider } from './descriptor.js';
