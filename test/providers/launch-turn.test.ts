// Every cloud's actuator tells the machine controller when a new Machine's launch will get through the provider's
// own write budget (Actuator.launchTurnInMs), from the Machine alone: the scope its launch is metered in (EC2 and
// VPC by region, GCE by project) and the limiter its clients share. No call is made to answer.
import { expect } from 'chai';
import { FakeClock, type Actuator, type Machine } from '../../lib/index.js';
import { createAwsActuator } from '../../providers/aws/actuator.js';
import { createGcpActuator } from '../../providers/gcp/actuator.js';
import { createIbmCloudActuator } from '../../providers/ibmcloud/actuator.js';
import * as aws from './aws/fixtures.js';
import * as gcp from './gcp/fixtures.js';
import * as ibm from './ibmcloud/fixtures.js';

/** One launch at once, then one every 5 s: a Machine past the first waits beyond its 1 s line. */
const slowWrites = { describe: { qps: 1000, burst: 1000 }, mutate: { qps: 0.2, burst: 1 } };
/** Nothing listens here: an actuator that made a call would fail the test. */
const nowhere = 'http://127.0.0.1:9';
const DEFER_BEYOND_MS = 1_000;

interface Cloud {
  name: string;
  actuator(clock: FakeClock): Actuator & { close?(): unknown };
  machine(name: string, spec?: Record<string, unknown>): Machine;
  /** A spec whose launch is metered in another scope than the default spec's. */
  otherScope: Record<string, unknown>;
  /** A spec whose scope cannot be told without reading its credentials (none for clouds that always can). */
  scopeUnknown?: Record<string, unknown>;
  /** A spec whose Machine makes another write in the launch's class before it runs (a membership, tags). */
  moreWrites: Record<string, unknown>;
}

const clouds: Cloud[] = [
  {
    name: 'AWS',
    actuator: (clock) =>
      createAwsActuator({ client: aws.secretsClient(), clock, endpoint: nowhere, rateLimits: slowWrites }),
    machine: (name, spec) => aws.machine(name, spec),
    otherScope: aws.awsSpec({ placement: { region: 'eu-west-1', availabilityZone: 'eu-west-1a' } }),
    moreWrites: aws.awsSpec({ loadBalancers: [{ name: 'workers', type: 'network' }] }),
  },
  {
    name: 'GCP',
    actuator: (clock) =>
      createGcpActuator({ client: gcp.secretsClient(), clock, endpoint: nowhere, rateLimits: slowWrites }),
    machine: (name, spec) => gcp.machine(name, spec ?? gcp.gcpSpec({ projectID: gcp.PROJECT })),
    otherScope: gcp.gcpSpec({ projectID: 'another-project' }),
    scopeUnknown: gcp.gcpSpec({ projectID: '' }),
    moreWrites: gcp.gcpSpec({ projectID: gcp.PROJECT, targetPools: ['workers'] }),
  },
  {
    name: 'IBM Cloud',
    actuator: (clock) =>
      createIbmCloudActuator({
        client: ibm.secretsClient(),
        clock,
        endpoints: { vpc: nowhere, iam: nowhere, resourceManager: nowhere, globalTagging: nowhere },
        rateLimits: slowWrites,
      }),
    machine: (name, spec) => ibm.machine(name, spec),
    otherScope: ibm.ibmSpec({ region: 'eu-de', zone: 'eu-de-1' }),
    moreWrites: ibm.ibmSpec({ tags: [{ name: 'team', value: 'workers' }] }),
  },
];

for (const cloud of clouds) {
  describe(`${cloud.name} actuator: a new Machine's launch turn`, () => {
    it('is now for the first launch, and one token interval later for each launch promised before it, in one scope', () => {
      const actuator = cloud.actuator(new FakeClock());
      try {
        const turns = ['a', 'b', 'c'].map((n) => actuator.launchTurnInMs?.(cloud.machine(n), DEFER_BEYOND_MS));
        // a takes the one token; b would wait 5 s for the next, c 10 s: each is told to come back when the
        // wait ahead of it is down to half its 1 s line.
        expect(turns).to.deep.equal([undefined, 4_500, 9_500]);
        expect(
          actuator.launchTurnInMs?.(cloud.machine('elsewhere', cloud.otherScope), DEFER_BEYOND_MS),
          'another scope has its own budget',
        ).to.equal(undefined);
      } finally {
        void actuator.close?.();
      }
    });

    it('is not promised to a Machine whose launch is not its only write there before it runs: its other writes would take the tokens promised', () => {
      const actuator = cloud.actuator(new FakeClock());
      try {
        expect(actuator.launchTurnInMs?.(cloud.machine('first'), DEFER_BEYOND_MS)).to.equal(undefined);
        expect(actuator.launchTurnInMs?.(cloud.machine('member', cloud.moreWrites), DEFER_BEYOND_MS)).to.equal(
          undefined,
        );
        expect(
          actuator.launchTurnInMs?.(cloud.machine('next'), DEFER_BEYOND_MS),
          'nothing was promised to it',
        ).to.equal(4_500);
      } finally {
        void actuator.close?.();
      }
    });

    it('is not asked of the limiter for a Machine with an instance, or being deleted', () => {
      const actuator = cloud.actuator(new FakeClock());
      try {
        expect(actuator.launchTurnInMs?.(cloud.machine('first'), DEFER_BEYOND_MS)).to.equal(undefined);
        const provisioned = cloud.machine('provisioned');
        provisioned.spec = { ...provisioned.spec, providerID: 'cloud:///zone/i-1' };
        const deleting = cloud.machine('deleting');
        deleting.metadata.deletionTimestamp = new Date().toISOString();
        expect(actuator.launchTurnInMs?.(provisioned, DEFER_BEYOND_MS)).to.equal(undefined);
        expect(actuator.launchTurnInMs?.(deleting, DEFER_BEYOND_MS)).to.equal(undefined);
        expect(
          actuator.launchTurnInMs?.(cloud.machine('next'), DEFER_BEYOND_MS),
          'no token was promised to them',
        ).to.equal(4_500);
        if (cloud.scopeUnknown)
          expect(actuator.launchTurnInMs?.(cloud.machine('unknown', cloud.scopeUnknown), DEFER_BEYOND_MS)).to.equal(
            undefined,
          );
      } finally {
        void actuator.close?.();
      }
    });
  });
}
