// Minimal types for the parts of autocannon the benchmarks use (no @types/autocannon installed).
declare module 'autocannon' {
  interface Options {
    url: string;
    headers?: Record<string, string>;
    connections?: number;
    duration?: number;
    skipAggregateResult?: boolean;
  }
  interface Histogram {
    average: number;
    p50: number;
    p99: number;
    total: number;
  }
  interface Result {
    latency: Histogram;
    requests: Histogram;
    errors: number;
    timeouts: number;
    non2xx: number;
  }
  function autocannon(opts: Options): Promise<Result>;
  namespace autocannon {
    function aggregateResult(results: unknown[], opts: { url: string; connections?: number }): Result;
  }
  export default autocannon;
}
