// A stock-out as a user drives it, on every cloud: the local environment `npm start` runs, the real kubectl, and
// the emulator's admin endpoint (endpoints.json cloud.<provider>.admin). The sample MachineSet's instance type is
// taken out of capacity everywhere; a copy of it with one fallback type scales to 5, and all 5 run on it.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { expect } from 'chai';
import { parse } from 'yaml';
import { startLocalEnvironment, type LocalEnvironment } from '../../cmd/local/environment.js';
import { repoRoot } from '../../cmd/local/repo-root.js';
import { hasKubectl, kubectlOutput } from './support/kubectl.js';
import { eventually } from './support/local-process.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
const NS = 'openshift-machine-api';
const SET_LABEL = 'machine.openshift.io/cluster-api-machineset';
const TYPE_LABEL = 'machine.openshift.io/instance-type';

interface MachineSetJson {
  metadata: { name: string; namespace: string; labels: Record<string, string> };
  spec: {
    replicas: number;
    selector: { matchLabels: Record<string, string> };
    template: {
      metadata: { labels: Record<string, string> };
      spec: { providerSpec: { value: Record<string, unknown> } };
    };
  };
}

/** Per cloud: the providerSpec field of the instance type, the admin body's name for it, and the fallback type. */
const clouds = [
  { provider: 'aws', typeField: 'instanceType', adminField: 'instanceType', fallback: 'm6a.xlarge' },
  { provider: 'gcp', typeField: 'machineType', adminField: 'instanceType', fallback: 'e2-standard-4' },
  { provider: 'ibmcloud', typeField: 'profile', adminField: 'profile', fallback: 'bx2-2x8' },
] as const;

for (const cloud of clouds) {
  describe(`a stock-out in the local environment (--provider ${cloud.provider}), through kubectl and the admin endpoint`, function () {
    this.timeout(180_000);
    let dir: string;
    let env: LocalEnvironment | undefined;

    before(async function () {
      if (!hasKubectl()) this.skip();
      dir = mkdtempSync(join(tmpdir(), `mapi-stock-out-${cloud.provider}-`));
      env = await startLocalEnvironment({
        provider: cloud.provider,
        stateDir: dir,
        samples: false,
        bootDelayMs: 100,
        terminateDelayMs: 100,
        logStream: new PassThrough().resume(),
      });
    });
    after(async () => {
      await env?.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    const kubectl = (args: string[]): Promise<string> => kubectlOutput(env!.kubeconfigPath, args);

    it('scales a MachineSet whose primary type has no capacity to 5, all Running on its fallback', async () => {
      const endpoints = JSON.parse(readFileSync(join(dir, 'endpoints.json'), 'utf8')) as {
        cloud: Record<string, { admin: string }>;
      };
      const admin = endpoints.cloud[cloud.provider]!.admin;
      expect(admin).to.match(/^http:\/\/127\.0\.0\.1:\d+$/);
      const set = parse(
        readFileSync(join(repoRoot(), 'manifests', 'samples', cloud.provider, 'machineset.yaml'), 'utf8'),
      ) as MachineSetJson;
      const value = set.spec.template.spec.providerSpec.value;
      const primary = String(value[cloud.typeField]);

      const res = await fetch(`${admin}/capacity`, {
        method: 'POST',
        body: JSON.stringify({ [cloud.adminField]: primary, zone: '*', market: '*', available: false }),
      });
      expect(res.status, await res.text()).to.equal(200);

      const name = 'stock-out';
      set.metadata.name = name;
      set.metadata.labels[SET_LABEL] = name;
      set.spec.selector.matchLabels[SET_LABEL] = name;
      set.spec.template.metadata.labels[SET_LABEL] = name;
      set.spec.replicas = 0;
      value.fallbacks = [{ [cloud.typeField]: cloud.fallback }];
      const file = join(dir, 'stock-out.json');
      writeFileSync(file, JSON.stringify(set));
      await kubectl(['apply', '-f', file]);
      await kubectl(['scale', 'machineset', name, '-n', NS, '--replicas=5']);

      const running = await eventually('5 Machines of the stock-out set Running', async () => {
        const list = JSON.parse(
          await kubectl(['get', 'machines', '-n', NS, '-l', `${SET_LABEL}=${name}`, '-o', 'json']),
        ).items as Array<{ metadata: { labels?: Record<string, string> }; status?: { phase?: string } }>;
        return list.length === 5 && list.every((m) => m.status?.phase === 'Running') ? list : undefined;
      });
      expect(running.map((m) => m.metadata.labels?.[TYPE_LABEL])).to.deep.equal(Array(5).fill(cloud.fallback));
    });
  });
}
