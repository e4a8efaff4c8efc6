import { expect } from 'chai';
import { MachineInterruptibleInstanceLabel } from '../../../lib/apis/constants.js';
import type { Machine } from '../../../lib/apis/machine-types.js';
import { Machines } from '../../../lib/client/resources.js';
import { MachineDraft } from '../../../lib/machine/machine-writer.js';
import { machine, NS } from './fixtures.js';
import { MemoryKubeClient } from './memory-kube.js';

const key = { namespace: NS, name: 'm1' };

async function draftOf(client: MemoryKubeClient, m: Machine): Promise<MachineDraft> {
  return new MachineDraft(await client.create(Machines, m), client);
}

describe('MachineDraft (the Machine writer)', () => {
  it('persists the labels and annotations an actuator put in spec.metadata, in the one metadata/spec patch', async () => {
    const client = new MemoryKubeClient();
    const draft = await draftOf(client, machine('m1'));
    draft.machine.spec = {
      ...draft.machine.spec,
      providerID: 'aws:///us-east-1a/i-1',
      metadata: {
        labels: { [MachineInterruptibleInstanceLabel]: '' },
        annotations: { 'example.com/node-note': 'spot' },
      },
    };
    client.calls.length = 0;
    await draft.persist();
    const stored = client.peek(Machines, key);
    expect(stored?.spec?.metadata).to.deep.equal({
      labels: { [MachineInterruptibleInstanceLabel]: '' },
      annotations: { 'example.com/node-note': 'spot' },
    });
    expect(stored?.spec?.providerID).to.equal('aws:///us-east-1a/i-1');
    expect(client.calls).to.deep.equal(['patch machines']);
    expect(draft.base.spec?.metadata?.labels, 'the draft is rebased on what was written').to.have.property(
      MachineInterruptibleInstanceLabel,
      '',
    );
  });

  it('sends only the spec.metadata keys it changed: a key someone else set meanwhile stays, one it dropped goes', async () => {
    const client = new MemoryKubeClient();
    const draft = await draftOf(client, machine('m1', { spec: { metadata: { labels: { old: 'x', kept: 'y' } } } }));
    const concurrent = client.peek(Machines, key)!;
    concurrent.spec!.metadata!.labels = { ...concurrent.spec!.metadata!.labels, 'user/added': 'z' };
    client.put(Machines, concurrent);

    draft.machine.spec!.metadata = { labels: { kept: 'y', [MachineInterruptibleInstanceLabel]: '' } };
    await draft.persist();
    expect(client.peek(Machines, key)?.spec?.metadata?.labels).to.deep.equal({
      kept: 'y',
      'user/added': 'z',
      [MachineInterruptibleInstanceLabel]: '',
    });
  });

  it('writes nothing when spec.metadata did not change', async () => {
    const client = new MemoryKubeClient();
    const draft = await draftOf(client, machine('m1', { spec: { metadata: { labels: { a: 'b' } } } }));
    draft.machine.spec = { ...draft.machine.spec, metadata: { labels: { a: 'b' } } };
    client.calls.length = 0;
    await draft.persist();
    expect(client.calls).to.deep.equal([]);
  });
});
