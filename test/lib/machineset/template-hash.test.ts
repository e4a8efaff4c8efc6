import { expect } from 'chai';
import type { MachineSet } from '../../../lib/apis/machine-types.js';
import { templateHash } from '../../../lib/machineset/template-hash.js';

function ms(mutate: (m: MachineSet) => void = () => undefined): MachineSet {
  const m: MachineSet = {
    metadata: {
      name: 'workers',
      namespace: 'ns',
      annotations: { 'machine.openshift.io/rollout-strategy': 'RollingUpdate' },
    },
    spec: {
      replicas: 3,
      selector: { matchLabels: { a: 'b' } },
      template: {
        metadata: { labels: { a: 'b' }, annotations: { note: 'x' } },
        spec: { providerSpec: { value: { instanceType: 'm6i.large', tags: [{ name: 'k', value: 'v' }] } } },
      },
    },
  };
  mutate(m);
  return m;
}

describe('template hash', () => {
  const base = templateHash(ms());

  it('is a short label value, the same for the same template', () => {
    expect(base).to.match(/^[0-9a-f]{12}$/);
    expect(templateHash(ms())).to.equal(base);
  });

  it('changes with the providerSpec, the template labels and annotations, and the rest of the template spec', () => {
    const changes: Array<(m: MachineSet) => void> = [
      (m) => ((m.spec!.template!.spec!.providerSpec!.value as Record<string, unknown>).instanceType = 'm6i.xlarge'),
      (m) => (m.spec!.template!.metadata!.labels!.extra = 'y'),
      (m) => (m.spec!.template!.metadata!.annotations!.note = 'z'),
      (m) => (m.spec!.template!.spec!.taints = [{ key: 't', effect: 'NoSchedule' }]),
      (m) => (m.spec!.template!.spec!.metadata = { labels: { role: 'infra' } }),
      (m) =>
        ((m.spec!.template!.spec!.providerSpec!.value as Record<string, unknown>).tags = [{ name: 'k', value: 'w' }]),
    ];
    const hashes = changes.map((c) => templateHash(ms(c)));
    for (const h of hashes) expect(h).to.not.equal(base);
    expect(new Set(hashes).size).to.equal(hashes.length);
  });

  it('ignores replicas, the MachineSet metadata, key order, empty fields and what the API or migration sets', () => {
    const same: Array<(m: MachineSet) => void> = [
      (m) => (m.spec!.replicas = 7),
      (m) => (m.metadata.annotations = { 'machine.openshift.io/rollout-restart': 'now' }),
      (m) => (m.spec!.template!.spec!.authoritativeAPI = 'MachineAPI'),
      (m) => (m.spec!.template!.spec!.providerID = 'aws:///x'),
      (m) => ((m.spec!.template!.metadata as Record<string, unknown>).creationTimestamp = null),
      (m) => (m.spec!.template!.spec!.taints = []),
      (m) => (m.spec!.template!.spec!.metadata = {}),
      (m) => ((m.spec!.template!.spec!.providerSpec!.value as Record<string, unknown>).userDataSecret = null),
      (m) => (m.spec!.template!.metadata!.labels!['machine.openshift.io/template-hash'] = 'abc'),
      (m) => {
        const v = m.spec!.template!.spec!.providerSpec!.value as Record<string, unknown>;
        m.spec!.template!.spec!.providerSpec!.value = { tags: v.tags, instanceType: v.instanceType };
      },
    ];
    for (const [i, c] of same.entries()) expect(templateHash(ms(c)), `change ${i}`).to.equal(base);
  });

  it('never changes for the same template between releases (a new value would replace every Machine on upgrade)', () => {
    const pinned: MachineSet = {
      metadata: { name: 'w' },
      spec: {
        replicas: 3,
        selector: {},
        template: {
          metadata: { labels: { a: 'b' } },
          spec: { providerSpec: { value: { instanceType: 'm6i.xlarge', ami: { id: 'ami-1' } } } },
        },
      },
    };
    expect(templateHash(pinned)).to.equal('5e2e3061f024');
  });

  it('keeps the order of list items', () => {
    const a = templateHash(
      ms(
        (m) =>
          (m.spec!.template!.spec!.taints = [
            { key: 'a', effect: 'NoSchedule' },
            { key: 'b', effect: 'NoSchedule' },
          ]),
      ),
    );
    const b = templateHash(
      ms(
        (m) =>
          (m.spec!.template!.spec!.taints = [
            { key: 'b', effect: 'NoSchedule' },
            { key: 'a', effect: 'NoSchedule' },
          ]),
      ),
    );
    expect(a).to.not.equal(b);
  });
});
