// A local EC2/ELB endpoint for tests and `npm start`; never imported by production code.
export { EMULATOR_ACCESS_KEY, type AccessKey } from './access-keys.js';
export { signRequest } from './sigv4.js';
export { startEc2Emulator, type Ec2Emulator, type Ec2EmulatorOptions } from './ec2-emulator.js';
export {
  defaultWorld,
  internalDomain,
  DEFAULT_ACCOUNT_ID,
  DEFAULT_CLUSTER_ID,
  type DefaultWorldOptions,
} from './default-world.js';
export { DEFAULT_TIMINGS, VIEW_BY_ID, VIEW_SEARCH, type InstanceTimings } from './ec2-state.js';
export { DEFAULT_INSTANCE_TYPES } from './instance-type-table.js';
export { SPOT_PRICE_FACTOR, spotPrice } from './actions/run-instances.js';
export { toEmulatedInstance } from './instance-view.js';
export type * from './model.js';
export { INSTANCE_STATE_CODES } from './model.js';
