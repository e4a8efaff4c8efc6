import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { DEFAULT_PROFILE_SECONDS, profileSeconds } from '../../../lib/runtime/profiling.js';

describe('Profiler', () => {
  it('reads ?seconds as net/http/pprof does: a positive integer, else 30', () => {
    expect(profileSeconds('5')).to.equal(5);
    for (const bad of [null, '', '0', '-3', '1.5', 'ten'])
      expect(profileSeconds(bad), String(bad)).to.equal(DEFAULT_PROFILE_SECONDS);
  });

  it('streams a V8 heap snapshot from /debug/pprof/heapsnapshot', async function () {
    this.timeout(30_000);
    // A small process of its own: a snapshot of this test process's heap would take seconds.
    const script = `
      import { Profiler } from ${JSON.stringify(fileURLToPath(new URL('../../../lib/runtime/profiling.ts', import.meta.url)))};
      import { ProbeServer } from ${JSON.stringify(fileURLToPath(new URL('../../../lib/runtime/probe-server.ts', import.meta.url)))};
      import { RealClock } from ${JSON.stringify(fileURLToPath(new URL('../../../lib/base/real-clock.ts', import.meta.url)))};
      const stop = new AbortController();
      const server = new ProbeServer(new Profiler(new RealClock()).routes(stop.signal));
      console.log(await server.listen({ host: '127.0.0.1', port: 0 }));
      process.stdin.on('end', () => void server.close());
      process.stdin.resume();`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    try {
      const address = await new Promise<string>((resolve, reject) => {
        child.stdout.once('data', (c: Buffer) => resolve(c.toString().trim()));
        child.once('exit', (code) => reject(new Error(`exited ${code}`)));
      });
      const res = await fetch(`http://${address}/debug/pprof/heapsnapshot`);
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-disposition')).to.equal('attachment; filename="heap.heapsnapshot"');
      const snapshot = (await res.json()) as { snapshot: { meta: { node_fields: string[] }; node_count: number } };
      expect(snapshot.snapshot.meta.node_fields).to.include('self_size');
      expect(snapshot.snapshot.node_count).to.be.greaterThan(1000);
    } finally {
      child.stdin.end();
      child.kill();
    }
  });
});
