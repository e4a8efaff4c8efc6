import { expect } from 'chai';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { createKubeClient } from '../../../lib/client/http-kube-client.js';
import { loadKubeConfig } from '../../../lib/client/kube-config.js';
import { ConfigMaps } from '../../../lib/client/resources.js';
import { restClientMetrics } from '../../../lib/client/rest-client-metrics.js';
import { buildKubeconfig } from '../../../sim/apiserver/kubeconfig.js';
import { isNotFound } from '../../../lib/client/errors.js';

/** A server that answers ConfigMap "there" and 404s the rest, as kube-apiserver does. */
async function apiServer() {
  const server = createServer((req, res) => {
    if (req.url?.endsWith('/configmaps/there')) {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'there', namespace: 'ns' } }));
      return;
    }
    res.writeHead(404, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ kind: 'Status', status: 'Failure', reason: 'NotFound', code: 404, message: 'not found' }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, host: `127.0.0.1:${(server.address() as AddressInfo).port}` };
}

function client(host: string, registry: Registry) {
  return createKubeClient({
    kubeConfig: loadKubeConfig({ yaml: buildKubeconfig(`http://${host}`, 't') }),
    metrics: restClientMetrics(registry),
    requestTimeoutMs: 5_000,
  });
}

describe("client-go's request metrics", () => {
  it('count every request by status code, method and host, and time it by verb and host', async () => {
    const { server, host } = await apiServer();
    const registry = new Registry();
    const c = client(host, registry);
    try {
      await c.get(ConfigMaps, { namespace: 'ns', name: 'there' });
      await c.get(ConfigMaps, { namespace: 'ns', name: 'there' });
      const missing = await c.get(ConfigMaps, { namespace: 'ns', name: 'gone' }).catch((e: unknown) => e);
      expect(isNotFound(missing)).to.equal(true);
    } finally {
      c.close();
      server.close();
    }
    const requests = await registry.getSingleMetric('rest_client_requests_total')?.get();
    expect(requests?.values).to.deep.include.members([
      { labels: { code: '200', method: 'GET', host }, value: 2 },
      { labels: { code: '404', method: 'GET', host }, value: 1 },
    ]);
    const latency = await registry.getSingleMetric('rest_client_request_duration_seconds')?.get();
    const count = latency?.values.find(
      (v) => (v as { metricName?: string }).metricName === 'rest_client_request_duration_seconds_count',
    );
    expect(count).to.deep.include({ labels: { verb: 'GET', host }, value: 3 });
  });

  it('count a request that got no answer as "<error>", and share one set across the clients of a registry', async () => {
    const { server, host } = await apiServer();
    await new Promise<void>((r) => server.close(() => r()));
    const registry = new Registry();
    const [a, b] = [client(host, registry), client(host, registry)];
    for (const c of [a, b]) {
      const err = await c.get(ConfigMaps, { namespace: 'ns', name: 'there' }).catch((e: unknown) => e);
      expect(err).to.be.instanceOf(Error);
      c.close();
    }
    const requests = await registry.getSingleMetric('rest_client_requests_total')?.get();
    expect(requests?.values).to.deep.equal([{ labels: { code: '<error>', method: 'GET', host }, value: 2 }]);
  });
});
