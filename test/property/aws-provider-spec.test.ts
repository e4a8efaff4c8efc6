// Random and malformed AWS providerSpecs: validation accepts them or answers InvalidMachineConfiguration
// naming a field; it never throws anything else, and an invalid spec never reaches RunInstances.
import { expect } from 'chai';
import fc from 'fast-check';
import { InvalidMachineConfigurationError, RealClock, type Machine } from '../../lib/index.js';
import { createAwsActuator, decodeProviderConfig, type AwsActuator } from '../../providers/aws/index.js';
import { startEc2Emulator, type Ec2Emulator } from '../../sim/aws/index.js';
import { CLUSTER_ID, awsSpec, machine, recordingContext, secretsClient } from '../providers/aws/fixtures.js';
import { anyJson, deepNest, hostileString, setPath } from './arbitraries.js';
import { SPEC_FUZZ_RUNS, checkDecodeProperty, providerSpecTexts } from './provider-spec-fuzz.js';

/** Cases per property: a few hundred in npm test; PROPERTY_RUNS=10000 for the long run. */
const RUNS = Number(process.env.PROPERTY_RUNS ?? 200);

const FIELD_PATHS: Array<Array<string | number>> = [
  ['ami'],
  ['ami', 'id'],
  ['ami', 'filters'],
  ['ami', 'filters', 0, 'values'],
  ['instanceType'],
  ['placement'],
  ['placement', 'region'],
  ['placement', 'availabilityZone'],
  ['placement', 'tenancy'],
  ['placement', 'host', 'dedicatedHost', 'id'],
  ['subnet'],
  ['subnet', 'filters', 0, 'name'],
  ['securityGroups'],
  ['securityGroups', 0],
  ['securityGroups', 0, 'id'],
  ['blockDevices'],
  ['blockDevices', 0, 'ebs', 'volumeSize'],
  ['blockDevices', 0, 'ebs', 'iops'],
  ['blockDevices', 0, 'ebs', 'volumeType'],
  ['blockDevices', 0, 'ebs', 'kmsKey'],
  ['tags'],
  ['tags', 0, 'name'],
  ['tags', 0, 'value'],
  ['deviceIndex'],
  ['publicIp'],
  ['loadBalancers'],
  ['loadBalancers', 0, 'type'],
  ['spotMarketOptions'],
  ['spotMarketOptions', 'maxPrice'],
  ['metadataServiceOptions', 'authentication'],
  ['placementGroupName'],
  ['placementGroupPartition'],
  ['capacityReservationId'],
  ['marketType'],
  ['networkInterfaceType'],
  ['credentialsSecret'],
  ['userDataSecret', 'name'],
  ['iamInstanceProfile'],
  ['cpuOptions', 'confidentialCompute'],
  ['apiVersion'],
  ['kind'],
  ['unknownField'],
];

/** A valid spec with one field replaced by a random value, or a whole random value. */
const providerSpecs: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc
      .tuple(fc.constantFrom(...FIELD_PATHS), fc.oneof(anyJson, hostileString))
      .map(([path, v]) => setPath(awsSpec(), path, v)),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.constantFrom(...FIELD_PATHS), fc.constantFrom(...FIELD_PATHS), anyJson, anyJson)
      .map(([p1, p2, a, b]) => setPath(setPath(awsSpec(), p1, a), p2, b)),
  },
  { weight: 2, arbitrary: anyJson },
  { weight: 1, arbitrary: fc.integer({ min: 50, max: 3_000 }).map((d) => setPath(awsSpec(), ['ami'], deepNest(d))) },
);

function expectFieldError(err: unknown): asserts err is InvalidMachineConfigurationError {
  expect(err, String(err)).to.be.instanceOf(InvalidMachineConfigurationError);
  const field = (err as InvalidMachineConfigurationError).field;
  expect(field, (err as Error).message)
    .to.be.a('string')
    .and.match(/^spec\.providerSpec\.value/);
}

describe('property: AWS providerSpec validation on random and malformed input', function () {
  this.timeout(120_000);

  it(`turns ${SPEC_FUZZ_RUNS} generated specs (wrong types, 10,000-deep nesting, 5 MB strings, __proto__ keys) into a spec or InvalidMachineConfiguration, polluting nothing`, () => {
    const { accepted, rejected } = checkDecodeProperty(
      (v) => decodeProviderConfig(v),
      providerSpecTexts(awsSpec, FIELD_PATHS),
      'spec.providerSpec.value',
      17,
    );
    expect(accepted).to.be.greaterThan(100);
    expect(rejected).to.be.greaterThan(1000);
  });

  it('either accepts a spec or throws InvalidMachineConfiguration naming a providerSpec field, and nothing else', () => {
    fc.assert(
      fc.property(providerSpecs, (spec) => {
        try {
          decodeProviderConfig(spec);
        } catch (err) {
          expectFieldError(err);
        }
      }),
      { numRuns: RUNS, seed: 7 },
    );
  });

  describe('the actuator given an invalid spec', () => {
    let emu: Ec2Emulator;
    let actuator: AwsActuator;

    before(async () => {
      emu = await startEc2Emulator({ clusterId: CLUSTER_ID });
      actuator = createAwsActuator({
        client: secretsClient(),
        clock: new RealClock(),
        endpoint: emu.endpoint,
        maxAttempts: 1,
      });
    });
    after(async () => {
      actuator.close();
      await emu.stop();
    });

    it('fails create and update of a Machine whose providerSpec nests 10,000 levels deep with InvalidMachineConfiguration', async () => {
      const spec = JSON.parse(
        `{"ami":${'['.repeat(10_000)}"x"${']'.repeat(10_000)},"instanceType":"m6i.large"}`,
      ) as Record<string, unknown>;
      const before = emu.knobs.counts('RunInstances').total;
      for (const call of [
        () => actuator.create(machine('deep-spec', spec), recordingContext()),
        () => actuator.update(machine('deep-spec', spec), recordingContext()),
      ]) {
        let thrown: unknown;
        try {
          await call();
        } catch (err) {
          thrown = err;
        }
        expectFieldError(thrown);
        expect(thrown.field).to.equal('spec.providerSpec.value.ami');
      }
      expect(emu.knobs.counts('RunInstances').total).to.equal(before);
    });

    it('fails create with InvalidMachineConfiguration and never calls RunInstances', async () => {
      let invalid = 0;
      await fc.assert(
        fc.asyncProperty(providerSpecs, async (spec) => {
          try {
            decodeProviderConfig(spec);
            return; // valid: launching it is the integration tests' business
          } catch {
            invalid++;
          }
          const m: Machine = machine(`fuzz-${invalid}`, spec as Record<string, unknown>);
          const before = emu.knobs.counts('RunInstances').total;
          let thrown: unknown;
          try {
            await actuator.create(m, recordingContext());
          } catch (err) {
            thrown = err;
          }
          expectFieldError(thrown);
          expect(emu.knobs.counts('RunInstances').total).to.equal(before);
        }),
        { numRuns: Math.max(50, Math.floor(RUNS / 2)), seed: 11 },
      );
      expect(invalid).to.be.greaterThan(10);
    });
  });
});
