// `kubectl apply --server-side` against the local control plane, with field ownership as on a cluster:
// a scale owns replicas (a later apply without them leaves them alone, one with them conflicts until
// --force-conflicts), a label dropped from the applied file goes, and the entries show with
// --show-managed-fields. For a MachineSet (a CRD with a scale subresource) and a ConfigMap (built-in).
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { startControlPlane, type ControlPlane } from '../../sim/apiserver/index.js';
import { hasKubectl, runKubectl } from './support/kubectl.js';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const crds = join(repo, 'manifests', 'crds');
const ns = 'openshift-machine-api';

interface ManagedEntry {
  manager: string;
  operation: string;
  apiVersion: string;
  time: string;
  fieldsType: string;
  fieldsV1: Record<string, unknown>;
  subresource?: string;
}

function machineSet(opts: { replicas?: number; labels: Record<string, string> }): string {
  const labels = Object.entries(opts.labels)
    .map(([k, v]) => `    ${k}: "${v}"`)
    .join('\n');
  return [
    'apiVersion: machine.openshift.io/v1beta1',
    'kind: MachineSet',
    'metadata:',
    '  name: ssa-workers',
    `  namespace: ${ns}`,
    '  labels:',
    labels,
    'spec:',
    ...(opts.replicas !== undefined ? [`  replicas: ${opts.replicas}`] : []),
    '  selector:',
    '    matchLabels:',
    '      set: ssa-workers',
    '  template:',
    '    metadata:',
    '      labels:',
    '        set: ssa-workers',
    '',
  ].join('\n');
}

function configMap(data: Record<string, string>, labels: Record<string, string>): string {
  return [
    'apiVersion: v1',
    'kind: ConfigMap',
    'metadata:',
    '  name: ssa-config',
    `  namespace: ${ns}`,
    '  labels:',
    ...Object.entries(labels).map(([k, v]) => `    ${k}: "${v}"`),
    'data:',
    ...Object.entries(data).map(([k, v]) => `  ${k}: "${v}"`),
    '',
  ].join('\n');
}

describe('kubectl apply --server-side: field ownership', function () {
  this.timeout(60000);
  let cp: ControlPlane;
  let dir: string;
  let kubeconfig: string;

  const kubectl = (args: string[], input?: string) => runKubectl(kubeconfig, args, { input });
  async function ok(args: string[], input?: string): Promise<string> {
    const r = await kubectl(args, input);
    expect(r.code, `kubectl ${args.join(' ')}: ${r.stderr}`).to.equal(0);
    return r.stdout;
  }
  async function getYaml(
    resource: string,
    name: string,
    extra: string[] = [],
  ): Promise<{
    metadata: { labels?: Record<string, string>; managedFields?: ManagedEntry[] };
    spec?: { replicas?: number };
    data?: Record<string, string>;
  }> {
    return parseYaml(await ok(['get', resource, name, '-n', ns, '-o', 'yaml', ...extra])) as never;
  }

  before(async function () {
    if (!hasKubectl()) this.skip();
    dir = mkdtempSync(join(tmpdir(), 'kubectl-ssa-'));
    kubeconfig = join(dir, 'kubeconfig');
    cp = await startControlPlane({ crdDirs: [crds], kubeconfigPath: kubeconfig });
    await ok(['create', 'namespace', ns]);
  });
  after(async () => {
    await cp?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  describe('a MachineSet (custom resource with a scale subresource)', () => {
    it('apply creates it with an Apply entry for kubectl, shown with --show-managed-fields', async () => {
      await ok(['apply', '--server-side', '-f', '-'], machineSet({ replicas: 1, labels: { team: 'a', tier: 'b' } }));
      const ms = await getYaml('machineset', 'ssa-workers', ['--show-managed-fields']);
      const entries = ms.metadata.managedFields ?? [];
      expect(entries.map((e) => [e.manager, e.operation, e.apiVersion, e.fieldsType])).to.deep.equal([
        ['kubectl', 'Apply', 'machine.openshift.io/v1beta1', 'FieldsV1'],
      ]);
      expect(entries[0]?.time).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      expect(entries[0]?.fieldsV1).to.deep.include({ 'f:metadata': { 'f:labels': { 'f:team': {}, 'f:tier': {} } } });
      expect((entries[0]?.fieldsV1['f:spec'] as Record<string, unknown>)['f:replicas']).to.deep.equal({});
      expect((await getYaml('machineset', 'ssa-workers')).metadata.managedFields, 'hidden without the flag').to.equal(
        undefined,
      );
    });

    it('kubectl scale owns replicas: an apply without them keeps the scaled value', async () => {
      await ok(['scale', 'machineset', 'ssa-workers', '-n', ns, '--replicas=3']);
      const scaled = await getYaml('machineset', 'ssa-workers', ['--show-managed-fields']);
      expect(scaled.metadata.managedFields?.find((e) => e.subresource === 'scale')).to.deep.include({
        manager: 'kubectl',
        operation: 'Update',
        fieldsV1: { 'f:spec': { 'f:replicas': {} } },
      });
      await ok(['apply', '--server-side', '-f', '-'], machineSet({ labels: { team: 'a', tier: 'b' } }));
      expect((await getYaml('machineset', 'ssa-workers')).spec?.replicas).to.equal(3);
    });

    it('an apply that sets replicas conflicts with the scale, naming the manager and the field', async () => {
      const r = await kubectl(
        ['apply', '--server-side', '-f', '-'],
        machineSet({ replicas: 1, labels: { team: 'a', tier: 'b' } }),
      );
      expect(r.code).to.not.equal(0);
      expect(r.stderr).to.contain(
        'Apply failed with 1 conflict: conflict with "kubectl" with subresource "scale" using machine.openshift.io/v1beta1: .spec.replicas',
      );
      expect((await getYaml('machineset', 'ssa-workers')).spec?.replicas).to.equal(3);
    });

    it('--force-conflicts takes replicas back', async () => {
      await ok(
        ['apply', '--server-side', '--force-conflicts', '-f', '-'],
        machineSet({ replicas: 1, labels: { team: 'a', tier: 'b' } }),
      );
      const ms = await getYaml('machineset', 'ssa-workers', ['--show-managed-fields']);
      expect(ms.spec?.replicas).to.equal(1);
      expect(
        ms.metadata.managedFields?.some((e) => e.subresource === 'scale'),
        'the scale entry owned nothing more and went',
      ).to.equal(false);
    });

    it('a label removed from the applied file is removed from the object', async () => {
      await ok(['apply', '--server-side', '-f', '-'], machineSet({ replicas: 1, labels: { team: 'a' } }));
      expect((await getYaml('machineset', 'ssa-workers')).metadata.labels).to.deep.equal({ team: 'a' });
    });
  });

  describe('a Machine (custom resource with a list-type map)', () => {
    const hooks = (names: string[]) =>
      [
        'apiVersion: machine.openshift.io/v1beta1',
        'kind: Machine',
        'metadata:',
        '  name: ssa-machine',
        `  namespace: ${ns}`,
        'spec:',
        '  lifecycleHooks:',
        '    preDrain:',
        ...names.flatMap((n) => [`      - name: example.com/${n}`, `        owner: ${n.toLowerCase()}-operator`]),
        '',
      ].join('\n');
    async function preDrain(): Promise<string[]> {
      const m = parseYaml(await ok(['get', 'machine', 'ssa-machine', '-n', ns, '-o', 'yaml'])) as {
        spec: { lifecycleHooks?: { preDrain?: Array<{ name: string }> } };
      };
      return (m.spec.lifecycleHooks?.preDrain ?? []).map((h) => h.name);
    }

    it('two appliers each own their own preDrain hook (items merged by name); one dropping its hook removes only that one', async () => {
      await ok(['apply', '--server-side', '--field-manager=backup', '-f', '-'], hooks(['Backup']));
      await ok(['apply', '--server-side', '--field-manager=etcd', '-f', '-'], hooks(['Etcd']));
      expect(await preDrain()).to.deep.equal(['example.com/Backup', 'example.com/Etcd']);
      const m = parseYaml(
        await ok(['get', 'machine', 'ssa-machine', '-n', ns, '-o', 'yaml', '--show-managed-fields']),
      ) as { metadata: { managedFields: ManagedEntry[] } };
      const etcd = m.metadata.managedFields.find((e) => e.manager === 'etcd');
      expect(etcd?.fieldsV1).to.deep.equal({
        'f:spec': {
          'f:lifecycleHooks': {
            'f:preDrain': { 'k:{"name":"example.com/Etcd"}': { '.': {}, 'f:name': {}, 'f:owner': {} } },
          },
        },
      });
      await ok(
        ['apply', '--server-side', '--field-manager=etcd', '-f', '-'],
        hooks([]).replace('    preDrain:\n', '    preDrain: []\n'),
      );
      expect(await preDrain()).to.deep.equal(['example.com/Backup']);
    });
  });

  describe('a ConfigMap (built-in kind)', () => {
    it('kubectl create records an Update entry for kubectl-create; apply then shares the fields it sets to the same values', async () => {
      await ok(['create', 'configmap', 'ssa-config', '-n', ns, '--from-literal=a=1']);
      const created = await getYaml('configmap', 'ssa-config', ['--show-managed-fields']);
      expect(created.metadata.managedFields?.map((e) => [e.manager, e.operation, e.fieldsV1])).to.deep.equal([
        ['kubectl-create', 'Update', { 'f:data': { '.': {}, 'f:a': {} } }],
      ]);
      await ok(['apply', '--server-side', '-f', '-'], configMap({ a: '1', b: '2' }, { team: 'a', tier: 'b' }));
      const applied = await getYaml('configmap', 'ssa-config', ['--show-managed-fields']);
      expect(applied.data).to.deep.equal({ a: '1', b: '2' });
      expect(applied.metadata.managedFields?.map((e) => [e.manager, e.operation])).to.deep.equal([
        ['kubectl', 'Apply'],
        ['kubectl-create', 'Update'],
      ]);
    });

    it('an apply changing a value another manager (kubectl patch) set is a conflict; --force-conflicts wins', async () => {
      await ok(['patch', 'configmap', 'ssa-config', '-n', ns, '--type=merge', '-p', '{"data":{"b":"changed"}}']);
      const r = await kubectl(
        ['apply', '--server-side', '-f', '-'],
        configMap({ a: '1', b: '2' }, { team: 'a', tier: 'b' }),
      );
      expect(r.code).to.not.equal(0);
      expect(r.stderr).to.contain('conflict with "kubectl-patch" using v1: .data.b');
      await ok(
        ['apply', '--server-side', '--force-conflicts', '-f', '-'],
        configMap({ a: '1', b: '2' }, { team: 'a', tier: 'b' }),
      );
      expect((await getYaml('configmap', 'ssa-config')).data).to.deep.equal({ a: '1', b: '2' });
    });

    it('a label and a key dropped from the applied file are removed; a key another manager also owns stays', async () => {
      await ok(['apply', '--server-side', '-f', '-'], configMap({ b: '2' }, { team: 'a' }));
      const cm = await getYaml('configmap', 'ssa-config');
      expect(cm.metadata.labels).to.deep.equal({ team: 'a' });
      expect(cm.data).to.deep.equal({ a: '1', b: '2' });
    });

    it("a client-side apply moved to --server-side: kubectl takes over the client-side manager's fields, so a key dropped from the file is removed", async () => {
      const file = (data: Record<string, string>) =>
        [
          'apiVersion: v1',
          'kind: ConfigMap',
          'metadata:',
          '  name: csa-config',
          `  namespace: ${ns}`,
          'data:',
          ...Object.entries(data).map(([k, v]) => `  ${k}: "${v}"`),
          '',
        ].join('\n');
      await ok(['apply', '-f', '-'], file({ a: '1', b: '2' }));
      const clientSide = await getYaml('configmap', 'csa-config', ['--show-managed-fields']);
      expect(clientSide.metadata.managedFields?.map((e) => [e.manager, e.operation])).to.deep.equal([
        ['kubectl-client-side-apply', 'Update'],
      ]);
      await ok(['apply', '--server-side', '-f', '-'], file({ a: '1' }));
      const serverSide = await getYaml('configmap', 'csa-config', ['--show-managed-fields']);
      expect(serverSide.data).to.deep.equal({ a: '1' });
      expect(serverSide.metadata.managedFields?.map((e) => e.manager)).to.not.include('kubectl-client-side-apply');
    });
  });
});
