// `npm start -- --provider ibmcloud` as a library: the local control plane, the VPC emulator, the kubelet
// simulator and the IBM Cloud binaries in-process, with the samples applied.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { expect } from 'chai';
import { waitForMachines } from '../../../sim/kit/index.js';
import { startLocalEnvironment, type LocalEnvironment } from '../../../cmd/local/environment.js';

describe('the local environment with --provider ibmcloud', function () {
  this.timeout(60_000);
  let dir: string;
  let env: LocalEnvironment | undefined;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'mapi-local-ibm-'));
  });
  after(async () => {
    await env?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('brings the sample MachineSet to 3 Running machines and publishes the VPC and IAM endpoints', async () => {
    env = await startLocalEnvironment({
      provider: 'ibmcloud',
      stateDir: dir,
      bootDelayMs: 100,
      terminateDelayMs: 100,
      logStream: new PassThrough().resume(),
    });
    const endpoints = JSON.parse(readFileSync(env.endpointsPath, 'utf8')) as {
      cloud: Record<string, Record<string, string>>;
    };
    expect(endpoints.cloud.ibmcloud?.endpoint).to.match(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    expect(endpoints.cloud.ibmcloud?.iamEndpoint).to.match(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(endpoints.cloud.ibmcloud?.region).to.equal('us-south');
    const machines = await waitForMachines(env.client, {
      namespace: 'openshift-machine-api',
      count: 3,
      phase: 'Running',
      timeoutMs: 40_000,
      intervalMs: 100,
    });
    expect(machines.map((m) => m.status?.phase)).to.deep.equal(['Running', 'Running', 'Running']);
    for (const m of machines) expect(m.spec?.providerID).to.match(/^ibm:\/\/[0-9a-f]+\/\/\/local\/0717_/);
  });
});
