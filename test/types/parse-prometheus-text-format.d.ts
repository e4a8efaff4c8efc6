// The package ships no types; this is the prom2json-shaped result its README documents.
declare module 'parse-prometheus-text-format' {
  interface PromSample {
    labels?: Record<string, string>;
    /** Gauges, counters and untyped samples. */
    value?: string;
    timestamp_ms?: string;
    /** Histograms and summaries. */
    buckets?: Record<string, string>;
    quantiles?: Record<string, string>;
    count?: string;
    sum?: string;
  }
  interface PromFamily {
    name: string;
    help: string;
    type: 'GAUGE' | 'COUNTER' | 'UNTYPED' | 'HISTOGRAM' | 'SUMMARY';
    metrics: PromSample[];
  }
  function parsePrometheusTextFormat(text: string): PromFamily[];
  export default parsePrometheusTextFormat;
}
