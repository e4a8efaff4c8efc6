// Small helpers for the controller integration tests: polling with a bound, a namespace per test, a manager
// that runs until the test stops it, and reading events back.
import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import type { CoreEvent } from '../../../lib/apis/core.js';
import type { KubeClient } from '../../../lib/client/kube-client.js';
import { Events, Namespaces } from '../../../lib/client/resources.js';
import type { Manager } from '../../../lib/runtime/manager.js';

export type Truthy<T> = Exclude<T, false | null | undefined | 0 | ''>;

/** Polls until fn returns something truthy (or stops throwing), for at most timeoutMs. */
export async function eventually<T>(
  fn: () => Promise<T> | T,
  opts: { timeoutMs?: number; intervalMs?: number; what?: string } = {},
): Promise<Truthy<T>> {
  const deadline = Date.now() + (opts.timeoutMs ?? 10_000);
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v as Truthy<T>;
      last = new Error(`${opts.what ?? 'condition'} not met (got ${JSON.stringify(v)})`);
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw last instanceof Error ? last : new Error(String(last));
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 25));
  }
}

/** Lets the controllers run for a while; for checks that something does NOT happen. */
export const settle = (ms = 300) => new Promise((r) => setTimeout(r, ms));

export async function newNamespace(client: KubeClient, prefix = 'test'): Promise<string> {
  const name = `${prefix}-${randomBytes(4).toString('hex')}`;
  await client.create(Namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  return name;
}

export interface Running {
  stop(): Promise<void>;
}

export function run(mgr: Manager): Running {
  const ac = new AbortController();
  const done = mgr.start(ac.signal);
  return {
    async stop() {
      ac.abort();
      await done;
    },
  };
}

export async function events(client: KubeClient, namespace: string, reason?: string): Promise<CoreEvent[]> {
  const { items } = await client.list(Events, { namespace });
  return items.filter((e) => reason === undefined || e.reason === reason);
}

/** A client that forwards to `inner` except for the methods given, to count, delay or fail calls in a test. */
export function delegatingClient(inner: KubeClient, overrides: Partial<KubeClient> = {}): KubeClient {
  return {
    get: (r, k, o) => inner.get(r, k, o),
    list: (r, o) => inner.list(r, o),
    create: (r, obj, o) => inner.create(r, obj, o),
    update: (r, obj, o) => inner.update(r, obj, o),
    updateStatus: (r, obj, o) => inner.updateStatus(r, obj, o),
    patch: (r, k, p, o) => inner.patch(r, k, p, o),
    delete: (r, k, o) => inner.delete(r, k, o),
    evict: (k, e, o) => inner.evict(k, e, o),
    watch: (r, o, onEvent, s) => inner.watch(r, o, onEvent, s),
    ...overrides,
  };
}

/** GETs a path (e.g. a machinesets/<name>/scale subresource) straight over HTTP(S), as kubectl would. */
export async function getPath(
  env: { controlPlane: { url: string; token: string }; kubeConfig: KubeConfig },
  path: string,
): Promise<Record<string, unknown>> {
  const caData = env.kubeConfig.getCurrentCluster()?.caData;
  const ca = caData ? Buffer.from(caData, 'base64') : undefined;
  return new Promise((resolve, reject) => {
    const url = `${env.controlPlane.url}${path}`;
    const request = url.startsWith('https:') ? httpsRequest : httpRequest;
    const req = request(url, { headers: { authorization: `Bearer ${env.controlPlane.token}` }, ca }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        if ((res.statusCode ?? 500) >= 300) reject(new Error(`GET ${path}: ${res.statusCode} ${body}`));
        else resolve(JSON.parse(body) as Record<string, unknown>);
      });
    });
    req.on('error', reject);
    req.end();
  });
}
