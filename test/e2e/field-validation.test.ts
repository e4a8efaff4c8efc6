// kubectl's --validate against the local control plane: strict (its default) makes the server reject
// unknown fields with kube's message, warn prints them as warnings, ignore drops them; for a built-in
// kind (ConfigMap) and a custom resource (Machine), through create and apply. A ConfigMap value that
// YAML reads as a number is refused with kube's decoding error.
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startControlPlane, type ControlPlane } from '../../sim/apiserver/index.js';
import { hasKubectl, runKubectl } from './support/kubectl.js';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const ns = 'field-validation';

describe('kubectl --validate against the local control plane', function () {
  this.timeout(60_000);
  let cp: ControlPlane;
  let dir: string;
  let kubeconfig: string;

  const kubectl = (args: string[]) => runKubectl(kubeconfig, args);
  function manifest(name: string, text: string): string {
    const file = join(dir, name);
    writeFileSync(file, text);
    return file;
  }
  const configMap = (name: string) =>
    [
      'apiVersion: v1',
      'kind: ConfigMap',
      'metadata:',
      `  name: ${name}`,
      `  namespace: ${ns}`,
      '  bogus: 1',
      'data:',
      '  k: v',
      'spec:',
      '  x: 1',
      '',
    ].join('\n');

  before(async function () {
    if (!hasKubectl()) this.skip();
    dir = mkdtempSync(join(tmpdir(), 'validate-e2e-'));
    kubeconfig = join(dir, 'kubeconfig');
    cp = await startControlPlane({ crdDirs: [join(repo, 'manifests', 'crds')], kubeconfigPath: kubeconfig });
    const created = await kubectl(['create', 'namespace', ns]);
    expect(created.code, created.stderr).to.equal(0);
  });
  after(async () => {
    await cp?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("create and apply --validate=strict (the default) fail with every unknown field in kube's message", async () => {
    const file = manifest('strict.yaml', configMap('strict'));
    const expected = `Error from server (BadRequest): error when creating "${file}": ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "metadata.bogus", unknown field "spec"`;
    const created = await kubectl(['create', '-f', file]);
    expect(created.code).to.equal(1);
    expect(created.stderr.trim()).to.equal(expected);
    const applied = await kubectl(['apply', '--validate=strict', '-f', file]);
    expect(applied.code).to.equal(1);
    expect(applied.stderr.trim()).to.equal(expected);
    expect((await kubectl(['get', 'configmap', '-n', ns, 'strict'])).code).to.equal(1);
  });

  it('apply --validate=warn prints each unknown field as a warning and stores the object without them', async () => {
    const applied = await kubectl(['apply', '--validate=warn', '-f', manifest('warn.yaml', configMap('warn'))]);
    expect(applied.code, applied.stderr).to.equal(0);
    expect(applied.stderr).to.contain('Warning: unknown field "metadata.bogus"');
    expect(applied.stderr).to.contain('Warning: unknown field "spec"');
    const got = JSON.parse((await kubectl(['get', 'configmap', '-n', ns, 'warn', '-o', 'json'])).stdout) as {
      spec?: unknown;
      metadata: Record<string, unknown>;
      data: unknown;
    };
    expect(got.spec).to.equal(undefined);
    expect(got.metadata.bogus).to.equal(undefined);
    expect(got.data).to.deep.equal({ k: 'v' });
  });

  it('apply --validate=ignore drops them silently', async () => {
    const applied = await kubectl(['apply', '--validate=ignore', '-f', manifest('ignore.yaml', configMap('ignore'))]);
    expect(applied.code, applied.stderr).to.equal(0);
    expect(applied.stderr).to.not.contain('Warning');
  });

  it('checks a custom resource against its schema and ObjectMeta, and a patch too', async () => {
    const machine = [
      'apiVersion: machine.openshift.io/v1beta1',
      'kind: Machine',
      'metadata:',
      '  name: m1',
      `  namespace: ${ns}`,
      '  bogus: 1',
      'spec:',
      '  bogusSpecField: true',
      '',
    ].join('\n');
    const applied = await kubectl(['apply', '-f', manifest('machine.yaml', machine)]);
    expect(applied.code).to.equal(1);
    expect(applied.stderr).to.contain(
      'Machine in version "v1beta1" cannot be handled as a Machine: strict decoding error: unknown field "metadata.bogus", unknown field "spec.bogusSpecField"',
    );
    const created = await kubectl([
      'apply',
      '-f',
      manifest('machine-ok.yaml', machine.replace('  bogus: 1\n', '').replace('  bogusSpecField: true\n', '')),
    ]);
    expect(created.code, created.stderr).to.equal(0);
    const patched = await kubectl([
      'patch',
      'machine',
      '-n',
      ns,
      'm1',
      '--type',
      'merge',
      '-p',
      '{"spec":{"bogusSpecField":true}}',
    ]);
    expect(patched.code).to.equal(0);
    expect(patched.stderr).to.contain('Warning: unknown field "spec.bogusSpecField"');
  });

  it("refuses a ConfigMap value YAML reads as a number with kube's decoding error", async () => {
    const file = manifest(
      'typed.yaml',
      [
        'apiVersion: v1',
        'kind: ConfigMap',
        `metadata: {name: typed, namespace: ${ns}}`,
        'data:',
        '  port: 5432',
        '',
      ].join('\n'),
    );
    const applied = await kubectl(['apply', '-f', file]);
    expect(applied.code).to.equal(1);
    expect(applied.stderr.trim()).to.equal(
      `Error from server (BadRequest): error when creating "${file}": ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ConfigMap.data of type string`,
    );
  });

  it('reports a field given twice: kubectl patch warns, a raw create with fieldValidation=Strict is refused naming it', async () => {
    expect((await kubectl(['create', 'configmap', 'twice', '-n', ns, '--from-literal=a=0'])).code).to.equal(0);
    const patched = await kubectl([
      'patch',
      'configmap',
      'twice',
      '-n',
      ns,
      '--type=merge',
      '-p',
      '{"data":{"a":"1","a":"2"}}',
    ]);
    expect(patched.code, patched.stderr).to.equal(0);
    expect(patched.stderr).to.contain('Warning: duplicate field "data.a"');
    expect(
      JSON.parse((await kubectl(['get', 'configmap', 'twice', '-n', ns, '-o', 'json'])).stdout).data,
    ).to.deep.equal({ a: '2' });
    const file = manifest(
      'twice.json',
      `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"twice-raw","name":"twice-raw"},"data":{"x":"1"}}`,
    );
    const raw = await kubectl([
      'create',
      '--raw',
      `/api/v1/namespaces/${ns}/configmaps?fieldValidation=Strict`,
      '-f',
      file,
    ]);
    expect(raw.code).to.equal(1);
    expect(raw.stderr.trim()).to.equal(
      'Error from server (BadRequest): ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: duplicate field "metadata.name"',
    );
  });

  it('answers a patch that makes a ConfigMap value a number with kube\'s 422 on "patch"', async () => {
    expect((await kubectl(['create', 'configmap', 'typed-patch', '-n', ns, '--from-literal=a=0'])).code).to.equal(0);
    const patched = await kubectl([
      'patch',
      'configmap',
      'typed-patch',
      '-n',
      ns,
      '--type=merge',
      '-p',
      '{"data":{"a":1}}',
    ]);
    expect(patched.code).to.equal(1);
    expect(patched.stderr).to.match(
      /^The request is invalid: patch: Invalid value: ".*": json: cannot unmarshal number into Go struct field ConfigMap\.data of type string\n?$/s,
    );
  });
});
