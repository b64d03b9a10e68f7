// Minimal types for autocannon 9 (it ships none, and @types/autocannon is not installed):
// only what the benchmarks use. See node_modules/autocannon/README.md for the rest.
declare module 'autocannon' {
  export type Histogram = {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    total: number;
    p50: number;
    p90: number;
    p99: number;
  };

  export type Options = {
    url: string;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    /** Requests each connection sends in turn (path, method, headers, body override the defaults). */
    requests?: { method?: string; path?: string; headers?: Record<string, string>; body?: string }[];
    connections?: number;
    /** Seconds. */
    duration?: number;
    /** Seconds to wait for each response. */
    timeout?: number;
    title?: string;
    /** A run before the measured one, with these options overridden; its result is discarded. */
    warmup?: { connections?: number; duration?: number };
    /** Called with each connection's client as it is created (also for the warm-up's connections). */
    setupClient?: (client: Client) => void;
  };

  export type Client = {
    /** Replaces the requests this connection sends in turn. */
    setRequests(requests: NonNullable<Options['requests']>): void;
  };

  export type Result = {
    title?: string;
    url: string;
    connections: number;
    duration: number;
    /** Requests completed per one-second sample; `total` counts all completed responses. */
    requests: Histogram & { sent: number };
    /** Milliseconds. */
    latency: Histogram;
    throughput: Histogram;
    /** Connection errors, including timeouts. */
    errors: number;
    timeouts: number;
    non2xx: number;
    statusCodeStats: Record<string, { count: number }>;
  };

  /** Called without a callback it returns a promise of the result (it is also an EventEmitter). */
  export default function autocannon(options: Options): Promise<Result>;
}
