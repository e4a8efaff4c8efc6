// Throughput and latency of the local control plane with a realistic load: N Machines (validated against the
// real CRD schema), then get, list, status-patch and watch fan-out rates, each with the 50th and 99th
// percentile of its requests' latency. Requests go over keep-alive HTTP with a fixed number in flight, so the
// numbers are the server's, not a client's connection set-up.
// Usage: npm run bench:apiserver [-- --machines 10000 --concurrency 16 --watchers 100 --data-dir DIR --json FILE]
// With --data-dir every write is durable before it is answered, so the write rates include that cost.
import { writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { Command } from 'commander';
import { startControlPlane, type ControlPlane } from '../../sim/apiserver/index.js';

const ns = 'openshift-machine-api';
const base = `/apis/machine.openshift.io/v1beta1/namespaces/${ns}/machines`;

interface Result {
  operation: string;
  ops: number;
  seconds: number;
  /** Per-request latency percentiles, ms (not for the fan-out, whose unit is an event delivered). */
  p50Ms?: number;
  p99Ms?: number;
  note?: string;
}

interface Timing {
  seconds: number;
  p50Ms: number;
  p99Ms: number;
}

/** The q-th quantile (0..1) of sorted values, nearest rank. */
function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? 0;
}

function call(
  cp: ControlPlane,
  agent: Agent,
  method: string,
  path: string,
  body?: unknown,
  contentType = 'application/json',
): Promise<string> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      new URL(path, cp.url),
      {
        method,
        agent,
        headers: {
          authorization: `Bearer ${cp.token}`,
          ...(payload !== undefined
            ? { 'content-type': contentType, 'content-length': Buffer.byteLength(payload) }
            : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if ((res.statusCode ?? 0) >= 300)
            reject(new Error(`${method} ${path}: ${res.statusCode} ${text.slice(0, 300)}`));
          else resolve(text);
        });
      },
    );
    req.on('error', reject);
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}

/** Runs n operations with `concurrency` in flight; returns elapsed seconds and latency percentiles. */
async function timed(n: number, concurrency: number, op: (i: number) => Promise<unknown>): Promise<Timing> {
  const start = performance.now();
  const latencies: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        const sent = performance.now();
        await op(next++);
        latencies.push(performance.now() - sent);
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  const ms = (v: number) => Math.round(v * 10) / 10;
  return {
    seconds: (performance.now() - start) / 1000,
    p50Ms: ms(quantile(latencies, 0.5)),
    p99Ms: ms(quantile(latencies, 0.99)),
  };
}

function machine(i: number) {
  return {
    apiVersion: 'machine.openshift.io/v1beta1',
    kind: 'Machine',
    metadata: {
      name: `bench-${String(i).padStart(5, '0')}`,
      labels: {
        'machine.openshift.io/cluster-api-machineset': `ms-${i % 20}`,
        'machine.openshift.io/cluster-api-cluster': 'bench',
      },
    },
    spec: {
      providerSpec: {
        value: {
          apiVersion: 'generic.machine.openshift.io/v1',
          kind: 'GenericMachineProviderSpec',
          instanceType: 'small',
        },
      },
    },
  };
}

async function watchFanOut(cp: ControlPlane, watchers: number, changes: number, agent: Agent): Promise<Result> {
  const list = JSON.parse(await call(cp, agent, 'GET', `${base}?limit=1`)) as { metadata: { resourceVersion: string } };
  const watchAgent = new Agent({ keepAlive: false, maxSockets: Infinity });
  let received = 0;
  const expected = watchers * changes;
  let resolveAll!: () => void;
  const all = new Promise<void>((r) => (resolveAll = r));
  const reqs = await Promise.all(
    Array.from(
      { length: watchers },
      () =>
        new Promise<ReturnType<typeof request>>((resolve, reject) => {
          const req = request(
            new URL(`${base}?watch=true&resourceVersion=${list.metadata.resourceVersion}`, cp.url),
            { agent: watchAgent, headers: { authorization: `Bearer ${cp.token}` } },
            (res) => {
              let buf = '';
              res.on('data', (c: Buffer) => {
                buf += c.toString();
                let nl: number;
                while ((nl = buf.indexOf('\n')) >= 0) {
                  buf = buf.slice(nl + 1);
                  if (++received === expected) resolveAll();
                }
              });
              resolve(req);
            },
          );
          req.on('error', reject);
          req.end();
        }),
    ),
  );
  const start = performance.now();
  for (let i = 0; i < changes; i++) {
    await call(
      cp,
      agent,
      'PATCH',
      `${base}/${machine(i).metadata.name}/status`,
      { status: { phase: `Phase${i}` } },
      'application/merge-patch+json',
    );
  }
  await all;
  const seconds = (performance.now() - start) / 1000;
  for (const r of reqs) r.destroy();
  watchAgent.destroy();
  return {
    operation: 'watch fan-out (events delivered)',
    ops: expected,
    seconds,
    note: `${watchers} watchers x ${changes} changes`,
  };
}

async function main(): Promise<void> {
  const o = new Command()
    .option('--machines <n>', 'Machines to create', (v) => Number(v), 10_000)
    .option('--concurrency <n>', 'requests in flight', (v) => Number(v), 16)
    .option('--watchers <n>', 'watch streams for the fan-out test', (v) => Number(v), 100)
    .option('--data-dir <dir>', 'persist to this (empty) directory, as machine-api-envtest --data-dir does')
    .option('--json <file>', 'also write the results as JSON')
    .parse(process.argv)
    .opts<{ machines: number; concurrency: number; watchers: number; dataDir?: string; json?: string }>();
  const cp = await startControlPlane({ watchHistoryLimit: 50_000, dataDir: o.dataDir });
  const agent = new Agent({ keepAlive: true, maxSockets: o.concurrency });
  const results: Result[] = [];
  try {
    await call(cp, agent, 'POST', '/api/v1/namespaces', { metadata: { name: ns } });
    const n = o.machines;
    const c = o.concurrency;
    results.push({
      operation: 'create (schema-validated)',
      ops: n,
      ...(await timed(n, c, (i) => call(cp, agent, 'POST', base, machine(i)))),
    });
    const gets = Math.min(n, 5000);
    results.push({
      operation: 'get',
      ops: gets,
      ...(await timed(gets, c, (i) => call(cp, agent, 'GET', `${base}/${machine(i).metadata.name}`))),
    });
    const lists = 10;
    results.push({
      operation: `list (all ${n})`,
      ops: lists,
      ...(await timed(lists, 2, () => call(cp, agent, 'GET', base))),
      note: `${n * lists} items`,
    });
    results.push({
      operation: 'list (label selector, 1/20)',
      ops: 100,
      ...(await timed(100, c, (i) =>
        call(cp, agent, 'GET', `${base}?labelSelector=machine.openshift.io/cluster-api-machineset=ms-${i % 20}`),
      )),
    });
    const patches = Math.min(n, 5000);
    results.push({
      operation: 'patch status (merge)',
      ops: patches,
      ...(await timed(patches, c, (i) =>
        call(
          cp,
          agent,
          'PATCH',
          `${base}/${machine(i).metadata.name}/status`,
          { status: { phase: 'Running' } },
          'application/merge-patch+json',
        ),
      )),
    });
    results.push(await watchFanOut(cp, o.watchers, 200, agent));
  } finally {
    agent.destroy();
    await cp.stop();
  }
  if (o.json) writeFileSync(o.json, `${JSON.stringify({ machines: o.machines, results }, null, 2)}\n`);
  const rows = results.map((r) => [
    r.operation,
    String(r.ops),
    r.seconds.toFixed(2),
    Math.round(r.ops / r.seconds).toLocaleString('en-US'),
    r.p50Ms === undefined ? '' : r.p50Ms.toFixed(1),
    r.p99Ms === undefined ? '' : r.p99Ms.toFixed(1),
    r.note ?? '',
  ]);
  const header = ['operation', 'ops', 'seconds', 'ops/s', 'p50 ms', 'p99 ms', ''];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === 0 || i === 6 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  process.stdout.write(`${line(header)}\n${line(widths.map((w) => '-'.repeat(w)))}\n${rows.map(line).join('\n')}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`bench:apiserver: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
