import { expect } from 'chai';
import {
  clientOf,
  ENVTEST_REQUESTS_METRIC,
  envtestMetrics,
  parseLoopbackAddress,
  type EnvtestMetrics,
} from '../../../cmd/internal/envtest-metrics.js';

describe("machine-api-envtest's /metrics", () => {
  let metrics: EnvtestMetrics;
  let url: string;

  beforeEach(async () => {
    metrics = envtestMetrics();
    url = `http://127.0.0.1:${await metrics.listen('127.0.0.1:0', 'secret-token')}/metrics`;
  });
  afterEach(() => metrics.close());

  it('counts resource requests per client, verb and resource/subresource', async () => {
    metrics.onRequest({
      verb: 'patch',
      resource: 'machines',
      subresource: 'status',
      userAgent: 'nodelink-controller/1.0',
    });
    metrics.onRequest({
      verb: 'patch',
      resource: 'machines',
      subresource: 'status',
      userAgent: 'nodelink-controller/1.0',
    });
    metrics.onRequest({ verb: 'list', resource: 'nodes' });
    const text = await (await fetch(url, { headers: { authorization: 'Bearer secret-token' } })).text();
    expect(text).to.contain(
      `${ENVTEST_REQUESTS_METRIC}{client="nodelink-controller",verb="patch",resource="machines/status"} 2`,
    );
    expect(text).to.contain(`${ENVTEST_REQUESTS_METRIC}{client="unknown",verb="list",resource="nodes"} 1`);
    expect(text).to.match(/^process_cpu_seconds_total \S+/m);
    expect(text).to.match(/^nodejs_heap_size_limit_bytes \S+/m);
  });

  it('answers 401 without the token and with another one', async () => {
    expect((await fetch(url)).status).to.equal(401);
    expect((await fetch(url, { headers: { authorization: 'Bearer other-token!' } })).status).to.equal(401);
  });

  it('binds loopback only', () => {
    expect(parseLoopbackAddress('127.0.0.1:9090')).to.deep.equal({ host: '127.0.0.1', port: 9090 });
    expect(parseLoopbackAddress('[::1]:0')).to.deep.equal({ host: '::1', port: 0 });
    expect(() => parseLoopbackAddress('0.0.0.0:9090')).to.throw(RangeError, /loopback/);
    expect(() => parseLoopbackAddress(':9090')).to.throw(RangeError);
  });

  it('names a client by its user agent without version or platform', () => {
    expect(clientOf('machine-api-provider-aws/v0.1 (linux/amd64)')).to.equal('machine-api-provider-aws');
    expect(clientOf(undefined)).to.equal('unknown');
  });
});
