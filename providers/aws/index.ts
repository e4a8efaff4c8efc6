// The AWS provider: actuator, scale-from-zero catalog, providerSpec types. cmd/ and tests import this.
export { createAwsActuator, type AwsActuator, type AwsActuatorOptions } from './actuator.js';
export {
  createAwsInstanceTypeCatalog,
  AwsInstanceTypeCatalog,
  toInstanceTypeInfo,
  architectureOf,
  INSTANCE_TYPE_CACHE_TTL_MS,
  type AwsInstanceTypeCatalogOptions,
} from './instance-types.js';
export {
  AwsClientFactory,
  describeInstancesById,
  type AwsClientFactoryOptions,
  type AwsClients,
  type AwsEndpoints,
} from './aws-clients.js';
export { SdkEc2Api, type Ec2Api, type CallOptions, type TargetGroupRef } from './ec2-api.js';
export { classifyEc2Error, isRetryableEc2Error, describeEc2Error, ec2ErrorCode, type Ec2ErrorClass } from './errors.js';
export {
  credentialsFromSecret,
  credentialsFingerprint,
  CredentialsSecretError,
  isWebIdentity,
  type AwsCredentials,
  type AwsCredentialSource,
  type AwsWebIdentity,
} from './credentials.js';
export { DEFAULT_EC2_RATE_LIMITS } from './rate-limiter.js';
export {
  SpotInstanceActionSource,
  SPOT_INSTANCE_ACTION_PATH,
  IMDS_TOKEN_PATH,
  type SpotInstanceActionOptions,
} from './spot-instance-action.js';
export * from './provider-spec.js';
export {
  validateProviderConfig,
  CAPACITY_RESERVATION_ID,
  DEDICATED_HOST_ID,
  type ValidationResult,
} from './provider-spec-validation.js';
export {
  buildRunInstancesInput,
  buildTags,
  clientTokenFor,
  providerIdOf,
  addressesOf,
  dhcpDomainsOf,
  machineLabelsFor,
  clusterIdOf,
  MACHINE_UID_TAG,
  CLUSTER_TAG_PREFIX,
  type IpFamily,
  type ResolvedLaunchInputs,
} from './instances.js';
export { awsMachineAdmission, AWS_PLATFORM } from './admission.js';
export { awsProvider } from './descriptor.js';
