import { expect } from 'chai';
import type { Machine } from '../../../lib/index.js';
import { looksStuck, mergesMachineConfigServer } from '../../../providers/ibmcloud/stuck-machine.js';
import type { VpcInstance } from '../../../providers/ibmcloud/vpc-types.js';

const T0 = Date.UTC(2026, 0, 1);
const MIN = 60_000;
const instance = (status: VpcInstance['status'] = 'running'): VpcInstance =>
  ({ id: 'i', crn: 'c', name: 'm', status, created_at: new Date(T0).toISOString() }) as VpcInstance;
const provisioned = (labels: Record<string, string> = {}): Machine => ({
  metadata: { name: 'm', labels },
  status: { phase: 'Provisioned' },
});

describe('stuck-machine detection (workers whose Ignition never fetched its merged config)', () => {
  it('recognises an Ignition v3 config that merges exactly one https source', () => {
    expect(
      mergesMachineConfigServer(
        '{"ignition":{"version":"3.2.0","config":{"merge":[{"source":"https://api-int:22623/config/worker"}]}}}',
      ),
    ).to.equal(true);
  });

  const not: Array<[string, string]> = [
    ['no merge', '{"ignition":{"version":"3.2.0"}}'],
    [
      'two merge sources',
      '{"ignition":{"version":"3.2.0","config":{"merge":[{"source":"https://a"},{"source":"https://b"}]}}}',
    ],
    ['an http source', '{"ignition":{"version":"3.2.0","config":{"merge":[{"source":"http://a"}]}}}'],
    ['Ignition v2', '{"ignition":{"version":"2.2.0","config":{"append":[{"source":"https://a"}]}}}'],
    ['not JSON', '#cloud-config'],
  ];
  for (const [what, ud] of not)
    it(`does not recognise ${what}`, () => expect(mergesMachineConfigServer(ud)).to.equal(false));

  it('calls a Provisioned worker stuck once its running instance is older than the timeout', () => {
    expect(looksStuck(provisioned(), {}, instance(), T0 + 16 * MIN, 15 * MIN)).to.equal(true);
    expect(looksStuck(provisioned(), {}, instance(), T0 + 14 * MIN, 15 * MIN)).to.equal(false);
  });

  it('never calls stuck a master, a machine with a node, an instance not running, or one already replaced', () => {
    const late = T0 + 60 * MIN;
    expect(
      looksStuck(
        provisioned({ 'machine.openshift.io/cluster-api-machine-role': 'master' }),
        {},
        instance(),
        late,
        15 * MIN,
      ),
    ).to.equal(false);
    expect(
      looksStuck(
        { metadata: {}, status: { phase: 'Provisioned', nodeRef: { name: 'n' } } },
        {},
        instance(),
        late,
        15 * MIN,
      ),
    ).to.equal(false);
    expect(looksStuck({ metadata: {}, status: { phase: 'Running' } }, {}, instance(), late, 15 * MIN)).to.equal(false);
    expect(looksStuck(provisioned(), {}, instance('starting'), late, 15 * MIN)).to.equal(false);
    const replaced = {
      conditions: [{ type: 'MachineReplacement', status: 'True' as const, reason: 'MachineReplacementCompleted' }],
    };
    expect(looksStuck(provisioned(), replaced, instance(), late, 15 * MIN)).to.equal(false);
  });
});
