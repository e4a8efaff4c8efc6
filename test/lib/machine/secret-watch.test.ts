import { expect } from 'chai';
import type { Secret } from '../../../lib/apis/core.js';
import type { Machine } from '../../../lib/apis/machine-types.js';
import { Machines, Secrets } from '../../../lib/client/resources.js';
import { referencedSecretKeys, watchReferencedSecrets } from '../../../lib/machine/secret-watch.js';
import type { InformerEvent, InformerHandler, Request } from '../../../lib/runtime/types.js';
import { machine, NS } from './fixtures.js';
import { MemoryInformer, MemoryKubeClient } from './memory-kube.js';

/** Secrets whose events the test delivers by hand. */
class SecretEvents extends MemoryInformer<Secret> {
  private readonly handlers: Array<[InformerEvent, InformerHandler<Secret>]> = [];
  override on(e: InformerEvent, h: InformerHandler<Secret>): () => void {
    this.handlers.push([e, h]);
    return () => {};
  }
  emit(e: InformerEvent, obj: Secret, old?: Secret): void {
    for (const [event, h] of this.handlers) if (event === e) h(obj, old);
  }
}

// The test's provider: the Secrets named in providerSpec.value.secrets.
const namedIn = (m: Machine): string[] =>
  (m.spec?.providerSpec?.value as { secrets?: string[] } | undefined)?.secrets ?? [];
const withSecrets = (name: string, secrets: string[], namespace = NS): Machine => {
  const m = machine(name, { spec: { providerSpec: { value: { secrets } } } });
  m.metadata.namespace = namespace;
  return m;
};
const secret = (name: string, resourceVersion = '1', namespace = NS): Secret => ({
  metadata: { namespace, name, resourceVersion },
});

async function setUp() {
  const client = new MemoryKubeClient();
  const machines = new MemoryInformer(client, Machines);
  const secrets = new SecretEvents(client, Secrets);
  const woken: Request[] = [];
  watchReferencedSecrets({ machines, secrets, referencedSecrets: namedIn, onSecretChanged: (r) => woken.push(r) });
  await client.create(Machines, withSecrets('a', ['creds', 'user-data']));
  await client.create(Machines, withSecrets('b', ['creds']));
  await client.create(Machines, withSecrets('c', ['other-creds']));
  await client.create(Machines, withSecrets('d', ['creds'], 'elsewhere'));
  return { secrets, woken, names: () => woken.map((r) => `${r.namespace ?? ''}/${r.name}`).sort() };
}

describe('the machine controller watch on the Secrets Machines name', () => {
  it('indexes a Machine by namespace/name of each Secret it names, once each, ignoring empty names', () => {
    expect(referencedSecretKeys(withSecrets('a', ['creds', 'user-data', 'creds', '']), namedIn)).to.deep.equal([
      `${NS}/creds`,
      `${NS}/user-data`,
    ]);
  });

  it('indexes a Machine whose provider cannot tell under nothing, instead of breaking the informer', () => {
    const throwing = (): string[] => {
      throw new Error('providerSpec does not decode');
    };
    expect(referencedSecretKeys(withSecrets('a', ['creds']), throwing)).to.deep.equal([]);
  });

  it('brings back every Machine of the namespace naming a Secret when it is created, and no other', async () => {
    const { secrets, names } = await setUp();
    secrets.emit('add', secret('creds'));
    expect(names()).to.deep.equal([`${NS}/a`, `${NS}/b`]);
  });

  it('brings them back when the Secret changes or is deleted, but not on a resync that re-delivers it unchanged', async () => {
    const { secrets, woken, names } = await setUp();
    const v1 = secret('user-data', '1');
    secrets.emit('update', v1, v1);
    secrets.emit('update', secret('user-data', '1'), secret('user-data', '1'));
    expect(woken).to.deep.equal([]);
    secrets.emit('update', secret('user-data', '2'), v1);
    expect(names()).to.deep.equal([`${NS}/a`]);
    secrets.emit('delete', secret('other-creds'));
    expect(names()).to.deep.equal([`${NS}/a`, `${NS}/c`]);
  });
});
