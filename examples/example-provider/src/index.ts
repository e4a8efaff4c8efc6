export { ExampleCloud, ExampleCloudError, type ExampleCloudOptions, type ExampleInstance } from './example-cloud.js';
export {
  ExampleActuator,
  decodeExampleSpec,
  type ExampleActuatorOptions,
  type ExampleScope,
  type ExampleSpec,
} from './example-actuator.js';
