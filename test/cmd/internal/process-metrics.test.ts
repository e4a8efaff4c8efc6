import { expect } from 'chai';
import { getHeapStatistics } from 'node:v8';
import { Registry } from 'prom-client';
import { HEAP_SIZE_LIMIT_METRIC, registerProcessMetrics } from '../../../cmd/internal/process-metrics.js';

/** The value of an unlabelled sample in Prometheus text. */
function sample(text: string, name: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.slice(name.length + 1));
}

describe('registerProcessMetrics', () => {
  it("exposes the V8 heap limit beside prom-client's heap used, as a positive number of bytes", async () => {
    const registry = new Registry();
    registerProcessMetrics(registry);
    const text = await registry.metrics();
    const limit = sample(text, HEAP_SIZE_LIMIT_METRIC);
    expect(HEAP_SIZE_LIMIT_METRIC).to.equal('nodejs_heap_size_limit_bytes');
    expect(limit).to.be.a('number').and.greaterThan(0);
    expect(limit).to.equal(getHeapStatistics().heap_size_limit);
    expect(sample(text, 'nodejs_heap_size_used_bytes')).to.be.a('number').and.greaterThan(0).and.lessThan(limit!);
    expect(text).to.include(`# TYPE ${HEAP_SIZE_LIMIT_METRIC} gauge`);
    expect(text).to.match(/# HELP nodejs_heap_size_limit_bytes .*heap_size_limit.*--max-old-space-size/);
  });

  it('keeps registries apart: each gets its own gauge', async () => {
    const a = new Registry();
    const b = new Registry();
    registerProcessMetrics(a);
    registerProcessMetrics(b);
    expect(sample(await b.metrics(), HEAP_SIZE_LIMIT_METRIC)).to.be.greaterThan(0);
  });
});
