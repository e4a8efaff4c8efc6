// The CRDs' x-kubernetes-validations rules as kubectl meets them on the local control plane: a status write that
// breaks a migration rule fails with kube-apiserver's 422 message (field path, the node's type as the value, the
// rule's message), a write that follows the rules goes through, and create never runs a transition rule.
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startControlPlane, type ControlPlane } from '../../sim/apiserver/index.js';
import { hasKubectl, runKubectl } from './support/kubectl.js';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const ns = 'cel-validation';

describe('CEL validation rules of manifests/crds through kubectl', function () {
  this.timeout(60_000);
  let cp: ControlPlane;
  let dir: string;
  let kubeconfig: string;

  const kubectl = (args: string[], input?: string) => runKubectl(kubeconfig, args, { input });
  const patchStatus = (kind: string, name: string, status: object) =>
    kubectl(['patch', kind, name, '-n', ns, '--subresource=status', '--type=merge', '-p', JSON.stringify({ status })]);
  const created = async (kind: string, name: string, spec: object) => {
    const body = { apiVersion: 'machine.openshift.io/v1beta1', kind, metadata: { name, namespace: ns }, spec };
    const r = await kubectl(['create', '-f', '-'], JSON.stringify(body));
    expect(r.code, r.stderr).to.equal(0);
  };

  before(async function () {
    if (!hasKubectl()) this.skip();
    dir = mkdtempSync(join(tmpdir(), 'cel-e2e-'));
    kubeconfig = join(dir, 'kubeconfig');
    cp = await startControlPlane({ crdDirs: [join(repo, 'manifests', 'crds')], kubeconfigPath: kubeconfig });
    const r = await kubectl(['create', 'namespace', ns]);
    expect(r.code, r.stderr).to.equal(0);
    await created('Machine', 'm', {});
    await created('MachineSet', 'ms', { selector: { matchLabels: { a: 'b' } } });
  });
  after(async () => {
    await cp?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  for (const [kind, name] of [
    ['Machine', 'm'],
    ['MachineSet', 'ms'],
  ] as const) {
    describe(kind, () => {
      it('lets the first status write set authoritativeAPI and synchronizedGeneration (no old value: no transition rule)', async () => {
        const r = await patchStatus(kind, name, { authoritativeAPI: 'MachineAPI', synchronizedGeneration: 5 });
        expect(r.code, r.stderr).to.equal(0);
      });

      it("refuses MachineAPI -> ClusterAPI with kube-apiserver's message, and keeps the stored value", async () => {
        const r = await patchStatus(kind, name, { authoritativeAPI: 'ClusterAPI' });
        expect(r.code).to.equal(1);
        expect(r.stderr.trim()).to.equal(
          `The ${kind} "${name}" is invalid: status.authoritativeAPI: Invalid value: "string": The authoritativeAPI field must not transition directly from MachineAPI to ClusterAPI or vice versa. It must transition through Migrating.`,
        );
        const got = await kubectl(['get', kind, name, '-n', ns, '-o', 'jsonpath={.status.authoritativeAPI}']);
        expect(got.stdout).to.equal('MachineAPI');
      });

      it('refuses a decreasing synchronizedGeneration at status.synchronizedGeneration', async () => {
        const r = await patchStatus(kind, name, { synchronizedGeneration: 4 });
        expect(r.code).to.equal(1);
        expect(r.stderr.trim()).to.equal(
          `The ${kind} "${name}" is invalid: status.synchronizedGeneration: Invalid value: "object": synchronizedGeneration must not decrease unless authoritativeAPI is transitioning from Migrating to another value`,
        );
      });

      it('refuses removing authoritativeAPI, reporting at status', async () => {
        const r = await patchStatus(kind, name, { authoritativeAPI: null });
        expect(r.code).to.equal(1);
        expect(r.stderr.trim()).to.equal(
          `The ${kind} "${name}" is invalid: status: Invalid value: "object": authoritativeAPI may not be removed once set`,
        );
      });

      it('lets a migration through Migrating, where synchronizedGeneration may restart', async () => {
        expect((await patchStatus(kind, name, { authoritativeAPI: 'Migrating' })).code).to.equal(0);
        const r = await patchStatus(kind, name, { authoritativeAPI: 'ClusterAPI', synchronizedGeneration: 1 });
        expect(r.code, r.stderr).to.equal(0);
        const got = await kubectl(['get', kind, name, '-n', ns, '-o', 'jsonpath={.status.synchronizedGeneration}']);
        expect(got.stdout).to.equal('1');
      });
    });
  }

  it('says the rules were not checked when the structural checks already failed, as kube-apiserver does', async () => {
    const body = {
      apiVersion: 'machine.openshift.io/v1beta1',
      kind: 'Machine',
      metadata: { name: 'bad', namespace: ns },
      spec: { authoritativeAPI: 'Other' },
    };
    const r = await kubectl(['create', '-f', '-'], JSON.stringify(body));
    expect(r.code).to.equal(1);
    expect(r.stderr.trim()).to.equal(
      'The Machine "bad" is invalid: \n' +
        '* spec.authoritativeAPI: Unsupported value: "Other": supported values: "MachineAPI", "ClusterAPI"\n' +
        '* <nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
    );
  });

  describe('the response', () => {
    it('is a 422 Status with the cause type kube-apiserver gives (FieldValueInvalid), for ClusterAPI -> MachineAPI', async () => {
      const r = await kubectl([
        'patch',
        'machine',
        'm',
        '-n',
        ns,
        '--subresource=status',
        '--type=merge',
        '-p',
        '{"status":{"authoritativeAPI":"MachineAPI"}}',
        '-v=9',
      ]);
      expect(r.code).to.equal(1);
      // kubectl -v=9 logs each response body (the GET, then the PATCH) as a quoted JSON string.
      const logged = r.stderr.split('\n').findLast((l) => l.includes('"Response Body" body='));
      const status = JSON.parse(JSON.parse(logged!.slice(logged!.indexOf('body=') + 5)) as string) as {
        code: number;
        reason: string;
        details: { name: string; group: string; kind: string; causes: unknown[] };
      };
      expect(status).to.include({ code: 422, reason: 'Invalid' });
      expect(status.details).to.include({ name: 'm', group: 'machine.openshift.io', kind: 'Machine' });
      expect(status.details.causes).to.deep.equal([
        {
          reason: 'FieldValueInvalid',
          field: 'status.authoritativeAPI',
          message:
            'Invalid value: "string": The authoritativeAPI field must not transition directly from MachineAPI to ClusterAPI or vice versa. It must transition through Migrating.',
        },
      ]);
    });
  });
});
