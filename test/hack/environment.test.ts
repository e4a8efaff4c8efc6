// The bench environment's control-plane kill: the machine-api-envtest binary takes over the data dir on the
// same port and token, is SIGKILLed while a client writes, and the control plane started again from what it
// left on disk still has every write either server acknowledged; the same client goes on without reconfiguring.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { Secrets, type Secret } from '../../lib/index.js';
import {
  BENCH_NAMESPACE,
  benchSecrets,
  DRIVER_USER_AGENT,
  startBenchEnvironment,
  type BenchEnvironment,
} from '../../hack/bench/environment.js';

const secret = (name: string): Secret => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name, namespace: BENCH_NAMESPACE },
  stringData: { k: name },
});

describe('bench environment: control-plane kill', function () {
  this.timeout(120_000);
  let dir: string;
  let env: BenchEnvironment;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'bench-env-'));
    env = await startBenchEnvironment({ stateDir: dir, bootDelayMs: 100, latencyMs: 0 });
  });
  after(async () => {
    await env.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps every acknowledged write across a SIGKILL of the out-of-process control plane, on the same URL', async () => {
    const urlBefore = env.controlPlane.url;
    const acknowledged: string[] = [];
    let writing = true;
    let n = 0;
    const writer = (async () => {
      while (writing) {
        const name = `w-${n++}`;
        try {
          await env.client.create(Secrets, secret(name));
          acknowledged.push(name);
        } catch {
          // The server is switching or just died: not acknowledged, nothing to keep.
        }
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    await env.killControlPlane(1_500);
    writing = false;
    await writer;
    expect(env.controlPlane.url).to.equal(urlBefore);
    const names = new Set(
      (await env.client.list(Secrets, { namespace: BENCH_NAMESPACE })).items.map((s) => s.metadata.name),
    );
    expect(acknowledged.length).to.be.greaterThan(0);
    expect(acknowledged.filter((a) => !names.has(a))).to.deep.equal([]);
    // The in-process server counts the requests it served (the bench Secrets first); the rest were the binary's.
    const servedInProcess =
      ((await env.requestCounts()).get(`${DRIVER_USER_AGENT}|create secrets`) ?? 0) - benchSecrets().length;
    expect(acknowledged.length, 'writes the killed binary acknowledged').to.be.greaterThan(servedInProcess);
    await env.client.create(Secrets, secret('after-restart'));
  });
});

describe('bench environment: the control plane in its own process', function () {
  this.timeout(120_000);
  let dir: string;
  let env: BenchEnvironment;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'bench-env-process-'));
    env = await startBenchEnvironment({ stateDir: dir, bootDelayMs: 100, latencyMs: 0, controlPlaneProcess: {} });
  });
  after(async () => {
    await env.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("serves the clients and counts their requests per client from the process's /metrics", async () => {
    await env.client.create(Secrets, secret('counted'));
    const counts = await env.requestCounts();
    expect(counts.get(`${DRIVER_USER_AGENT}|create secrets`)).to.equal(benchSecrets().length + 1);
    expect(counts.get(`${DRIVER_USER_AGENT}|create namespaces`)).to.equal(1);
    const metrics = await env.controlPlaneProcess!.metrics();
    expect(metrics).to.match(/^process_cpu_seconds_total \S+/m);
    expect(env.controlPlaneProcess!.sampleRss()).to.be.greaterThan(0);
  });

  it('has no in-process control plane to restart or kill', async () => {
    expect(() => env.controlPlane).to.throw(/own process/);
    let refused: unknown;
    await env.restartControlPlane().catch((err: unknown) => (refused = err));
    expect(String(refused)).to.match(/own process/);
  });
});
