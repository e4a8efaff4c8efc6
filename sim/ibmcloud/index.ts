// A local IBM Cloud VPC (+ IAM, Resource Manager, Global Tagging) endpoint for tests and `npm start`;
// never imported by production code.
//
// Knob / call-counter action names (classes for matchers: "read", "mutate", "iam"):
//   read:   GetRegion ListRegions ListInstances GetInstance GetInstanceProfile ListInstanceProfiles ListVpcs
//           ListImages ListSubnets ListSecurityGroups ListDedicatedHosts ListResourceGroups ListTags
//   mutate: CreateInstance DeleteInstance AttachTag
//   iam:    iam:GetToken (IAM_TOKEN_ACTION)
// Eventual-consistency views for setVisibilityDelay: VIEW_GET (GET /instances/{id}, DELETE) and VIEW_LIST
// (GET /instances).
export {
  startIbmVpcEmulator,
  classifyAction,
  DEFAULT_API_KEY,
  type IbmVpcEmulator,
  type IbmVpcEmulatorOptions,
} from './ibm-vpc-emulator.js';
export {
  defaultWorld,
  DEFAULT_ACCOUNT_ID,
  DEFAULT_CLUSTER_ID,
  DEFAULT_REGION,
  type DefaultWorldOptions,
} from './default-world.js';
export { DEFAULT_TIMINGS, VIEW_GET, VIEW_LIST, UNALLOCATED_IP, type InstanceTimings } from './vpc-state.js';
export { IAM_TOKEN_ACTION } from './routes.js';
export { ibmProviderId, toEmulatedInstance } from './instance-view.js';
export { defaultProfiles } from './profile-table.js';
export type * from './model.js';
