// `npm start -- --provider gcp` as a library: the local control plane, the GCE emulator, the kubelet
// simulator and the GCP binaries in-process, with the samples applied.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { expect } from 'chai';
import { waitForMachines } from '../../../sim/kit/index.js';
import { startLocalEnvironment, type LocalEnvironment } from '../../../cmd/local/environment.js';

describe('the local environment with --provider gcp', function () {
  this.timeout(60_000);
  let dir: string;
  let env: LocalEnvironment | undefined;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'mapi-local-gcp-'));
  });
  after(async () => {
    await env?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('brings the sample MachineSet to 3 Running machines and publishes the Compute endpoint and project', async () => {
    env = await startLocalEnvironment({
      provider: 'gcp',
      stateDir: dir,
      bootDelayMs: 100,
      terminateDelayMs: 100,
      logStream: new PassThrough().resume(),
    });
    const endpoints = JSON.parse(readFileSync(env.endpointsPath, 'utf8')) as {
      cloud: Record<string, Record<string, string>>;
    };
    expect(endpoints.cloud.gcp?.endpoint).to.match(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(endpoints.cloud.gcp?.project).to.equal('test-project');
    expect(endpoints.cloud.gcp?.region).to.equal('us-central1');
    const machines = await waitForMachines(env.client, {
      namespace: 'openshift-machine-api',
      count: 3,
      phase: 'Running',
      timeoutMs: 40_000,
      intervalMs: 100,
    });
    expect(machines.map((m) => m.status?.phase)).to.deep.equal(['Running', 'Running', 'Running']);
    for (const m of machines) {
      expect(m.spec?.providerID).to.equal(`gce://test-project/us-central1-a/${m.metadata.name}`);
      expect(m.status?.nodeRef?.name).to.be.a('string');
    }
  });
});
