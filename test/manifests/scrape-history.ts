// Scrapes of Prometheus text exposition, parsed by parse-prometheus-text-format, kept as time series the
// PromQL evaluator reads: each scrape adds one sample per series at the time it was taken, as Prometheus
// stores them.
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import type { Labels, Series } from './promql-evaluator.js';

export class ScrapeHistory {
  private readonly byKey = new Map<string, Series>();

  /**
   * Adds every gauge, counter and untyped sample of `text` at `atMs`, labelled as Prometheus labels them: the
   * target's labels (job, namespace, ...) win, and a scraped label they clash with is kept as exported_<name>
   * (honor_labels false, the ServiceMonitor default).
   */
  add(text: string, atMs: number, target: Labels = {}): void {
    for (const family of parsePrometheusTextFormat(text)) {
      if (family.type === 'HISTOGRAM' || family.type === 'SUMMARY') continue;
      for (const m of family.metrics) {
        const labels: Labels = { __name__: family.name };
        for (const [k, v] of Object.entries(m.labels ?? {})) labels[k in target ? `exported_${k}` : k] = v;
        Object.assign(labels, target);
        const key = JSON.stringify(Object.entries(labels).sort());
        const series = this.byKey.get(key) ?? { labels, samples: [] };
        series.samples.push({ t: atMs, v: Number(m.value) });
        this.byKey.set(key, series);
      }
    }
  }

  series(): Series[] {
    return [...this.byKey.values()];
  }
}
