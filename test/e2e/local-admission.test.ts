// Admission as `npm start` shows it, through the real kubectl: the machineset-controller's webhooks, registered
// with the operator's WebhookConfigurations and called by the local control plane, default what a cluster
// defaults (persisted, with kubectl's "Warning:"), and deny an invalid MachineSet or a change to a deleting
// Machine's lifecycle hooks with the field named. On every cloud. A field the CRD lacks is kube's strict
// decoding error under --validate=strict, found before any webhook is called, as on a cluster.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { expect } from 'chai';
import { parse } from 'yaml';
import { startLocalEnvironment, type LocalEnvironment } from '../../cmd/local/environment.js';
import { repoRoot } from '../../cmd/local/repo-root.js';
import { hasKubectl, runKubectl, type KubectlResult } from './support/kubectl.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
const NS = 'openshift-machine-api';
const CLUSTER_LABEL = 'machine.openshift.io/cluster-api-cluster';

interface SampleMachineSet {
  metadata: { name: string; labels: Record<string, string> };
  spec: { template: { spec: { providerSpec: { value: Record<string, unknown> } } } };
}

/** Per cloud: the field the mutating webhook fills in when a Machine leaves it out, and the value it writes. */
const clouds = [
  { provider: 'aws', defaulted: 'instanceType', value: 'm5.large', warning: 'setting the default instance type' },
  { provider: 'gcp', defaulted: 'machineType', value: 'n1-standard-4', warning: undefined },
  { provider: 'ibmcloud', defaulted: 'region', value: 'us-south', warning: undefined },
] as const;

for (const cloud of clouds) {
  describe(`admission webhooks in the local environment (--provider ${cloud.provider}), through kubectl`, function () {
    this.timeout(180_000);
    let dir: string;
    let env: LocalEnvironment | undefined;
    let sample: SampleMachineSet;

    before(async function () {
      if (!hasKubectl()) this.skip();
      dir = mkdtempSync(join(tmpdir(), `mapi-admission-${cloud.provider}-`));
      env = await startLocalEnvironment({
        provider: cloud.provider,
        stateDir: dir,
        samples: false,
        bootDelayMs: 100,
        terminateDelayMs: 100,
        logStream: new PassThrough().resume(),
      });
      sample = parse(
        readFileSync(join(repoRoot(), 'manifests', 'samples', cloud.provider, 'machineset.yaml'), 'utf8'),
      ) as SampleMachineSet;
    });
    after(async () => {
      await env?.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    const kubectl = (args: string[]): Promise<KubectlResult> =>
      runKubectl(env!.kubeconfigPath, args, { timeoutMs: 60_000 });

    async function apply(name: string, object: Record<string, unknown>): Promise<KubectlResult> {
      const file = join(dir, `${name}.json`);
      writeFileSync(file, JSON.stringify(object));
      return kubectl(['apply', '-f', file]);
    }

    it('stores a Machine that leaves out the cluster label and a defaulted field with both filled in', async () => {
      const value = { ...sample.spec.template.spec.providerSpec.value };
      delete value[cloud.defaulted];
      const out = await apply('defaults', {
        apiVersion: 'machine.openshift.io/v1beta1',
        kind: 'Machine',
        metadata: { name: 'defaults-1', namespace: NS },
        spec: { providerSpec: { value } },
      });
      expect(out.code, out.stderr).to.equal(0);
      if (cloud.warning) expect(out.stderr).to.contain('Warning:').and.contain(cloud.warning);
      const stored = JSON.parse((await kubectl(['get', 'machine', 'defaults-1', '-n', NS, '-o', 'json'])).stdout) as {
        metadata: { labels?: Record<string, string> };
        spec: { providerSpec: { value: Record<string, unknown> } };
      };
      expect(stored.metadata.labels?.[CLUSTER_LABEL]).to.equal(sample.metadata.labels[CLUSTER_LABEL]);
      expect(stored.spec.providerSpec.value[cloud.defaulted]).to.equal(cloud.value);
      await kubectl(['delete', 'machine', 'defaults-1', '-n', NS, '--wait=false']);
    });

    it('denies a MachineSet whose selector does not match its template, naming the field and the webhook', async () => {
      const bad = structuredClone(sample) as SampleMachineSet & {
        spec: { selector: { matchLabels: Record<string, string> } };
      };
      bad.metadata.name = 'mismatched';
      bad.spec.selector = { matchLabels: { 'machine.openshift.io/cluster-api-machineset': 'something-else' } };
      const out = await apply('mismatched', bad as unknown as Record<string, unknown>);
      expect(out.code).to.not.equal(0);
      expect(out.stderr)
        .to.contain('admission webhook "validation.machineset.machine.openshift.io" denied the request')
        .and.contain('spec.template.metadata.labels');
      expect((await kubectl(['get', 'machineset', 'mismatched', '-n', NS])).code).to.not.equal(0);
    });

    it('denies a providerSpec value the cloud refuses, with the field path from the MachineSet root', async () => {
      const bad = structuredClone(sample);
      bad.metadata.name = 'bad-spec';
      bad.spec.template.spec.providerSpec.value = {
        ...bad.spec.template.spec.providerSpec.value,
        credentialsSecret: { name: '' },
        [cloud.defaulted]: 42,
      };
      const out = await apply('bad-spec', bad as unknown as Record<string, unknown>);
      expect(out.code).to.not.equal(0);
      expect(out.stderr).to.contain('denied the request').and.contain('spec.template.spec.providerSpec.value.');
    });

    if (cloud.provider === 'aws') {
      it("refuses an unknown spec field with kube's strict decoding error before the webhooks, on create, replace and apply", async () => {
        const strictError = 'strict decoding error: unknown field "spec.bogusField"';
        const value = sample.spec.template.spec.providerSpec.value;
        const machine = (spec: Record<string, unknown>) => ({
          apiVersion: 'machine.openshift.io/v1beta1',
          kind: 'Machine',
          metadata: { name: 'strict-1', namespace: NS },
          spec,
        });
        // Without a providerSpec value the webhooks deny the Machine as well (the mutating one on create, the
        // validating one on update): the request must fail on the unknown field first.
        const bogus = join(dir, 'strict-bogus.json');
        writeFileSync(bogus, JSON.stringify(machine({ bogusField: 'x' })));
        for (const verb of ['create', 'apply']) {
          const created = await kubectl([verb, '--validate=strict', '-f', bogus]);
          expect(created.code, verb).to.not.equal(0);
          expect(created.stderr, verb)
            .to.contain('Machine in version "v1beta1" cannot be handled as a Machine: ' + strictError)
            .and.not.contain('denied the request');
        }
        expect((await kubectl(['get', 'machine', 'strict-1', '-n', NS])).code).to.not.equal(0);

        const valid = await apply('strict-valid', machine({ providerSpec: { value } }));
        expect(valid.code, valid.stderr).to.equal(0);
        // On an existing object, client-side apply sends a merge patch and server-side apply an apply patch.
        for (const args of [
          ['replace', '--validate=strict', '-f', bogus],
          ['apply', '--validate=strict', '-f', bogus],
          ['apply', '--server-side', '--validate=strict', '-f', bogus],
        ]) {
          const out = await kubectl(args);
          expect(out.code, args.join(' ')).to.not.equal(0);
          expect(out.stderr, args.join(' ')).to.contain(strictError).and.not.contain('denied the request');
        }
        // Under --validate=warn the field is a warning and the webhook has its say.
        const warned = await kubectl(['apply', '--validate=warn', '-f', bogus]);
        expect(warned.code).to.not.equal(0);
        expect(warned.stderr)
          .to.contain('Warning: unknown field "spec.bogusField"')
          .and.contain('admission webhook "validation.machine.machine.openshift.io" denied the request');
        await kubectl(['delete', 'machine', 'strict-1', '-n', NS, '--wait=false']);
      });

      it('keeps the lifecycle hooks of a deleting Machine as they are', async () => {
        const value = { ...sample.spec.template.spec.providerSpec.value };
        const created = await apply('held', {
          apiVersion: 'machine.openshift.io/v1beta1',
          kind: 'Machine',
          metadata: { name: 'held-1', namespace: NS, finalizers: ['example.com/hold'] },
          spec: { providerSpec: { value } },
        });
        expect(created.code, created.stderr).to.equal(0);
        expect((await kubectl(['delete', 'machine', 'held-1', '-n', NS, '--wait=false'])).code).to.equal(0);
        const hook = JSON.stringify({ spec: { lifecycleHooks: { preDrain: [{ name: 'late', owner: 'someone' }] } } });
        const out = await kubectl(['patch', 'machine', 'held-1', '-n', NS, '--type=merge', '-p', hook]);
        expect(out.code).to.not.equal(0);
        expect(out.stderr)
          .to.contain('admission webhook "validation.machine.machine.openshift.io" denied the request')
          .and.contain('spec.lifecycleHooks');
        await kubectl([
          'patch',
          'machine',
          'held-1',
          '-n',
          NS,
          '--type=json',
          '-p',
          JSON.stringify([{ op: 'remove', path: '/metadata/finalizers' }]),
        ]);
      });
    }
  });
}
