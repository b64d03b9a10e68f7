// The process's Prometheus metrics (prom-client). Recording is a few additions in memory, cheap
// enough for every request; nothing is exported unless METRICS_PORT starts the listener
// (metrics-server.ts), which also appends the Temporal SDK's own metrics (worker processes).
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export const registry = new Registry();

/** Every HTTP request: route template (never the raw path), method and status. */
export const httpRequestSeconds = new Histogram({
  name: 'vault_http_request_duration_seconds',
  help: 'HTTP requests by route template, method and status: count and duration in seconds',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

/** Records in one audit append statement (domain/audit/audit-writer.ts): grows with load. */
export const auditBatchSize = new Histogram({
  name: 'vault_audit_batch_size',
  help: 'Audit records written per append statement',
  buckets: [1, 2, 5, 10, 25, 50, 100, 250, 500],
  registers: [registry],
});

/** One audit append (a secret read waits for it): the statement and its commit. */
export const auditAppendSeconds = new Histogram({
  name: 'vault_audit_append_duration_seconds',
  help: 'Duration of one audit batch append in seconds, retries included',
  labelNames: ['result'] as const,
  buckets: [0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
  registers: [registry],
});

export const outboxDispatched = new Counter({
  name: 'vault_outbox_dispatched_events_total',
  help: 'Outbox events handed to every subscriber and marked dispatched',
  registers: [registry],
});

export const webhookDeliveries = new Counter({
  name: 'vault_webhook_delivery_attempts_total',
  help: 'Webhook delivery attempts by outcome: succeeded, retry (will be tried again) or gave_up',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

export const automationRunSeconds = new Histogram({
  name: 'vault_automation_run_duration_seconds',
  help: 'Finished automation runs by status: count and duration from start to end in seconds (approval waits included)',
  labelNames: ['status'] as const,
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 86_400],
  registers: [registry],
});

const OUTBOX_LAG = 'vault_outbox_lag_seconds';
let outboxLag: Gauge | undefined;

/**
 * The age of the oldest undispatched outbox event, read when scraped (a dispatcher that stopped
 * moving shows here, not only one that is slow). Registered by the process that dispatches.
 */
export function watchOutboxLag(oldestPendingAgeSeconds: () => Promise<number>): void {
  if (outboxLag) registry.removeSingleMetric(OUTBOX_LAG);
  outboxLag = new Gauge({
    name: OUTBOX_LAG,
    help: 'Age in seconds of the oldest outbox event not yet dispatched (0 when none waits)',
    registers: [registry],
    async collect() {
      // A scrape while the database is away keeps the last value rather than failing the scrape.
      try { this.set(await oldestPendingAgeSeconds()); } catch { /* the last value stands */ }
    },
  });
}

let defaultsOn = false;

/** Process metrics (CPU, memory, event-loop delay, GC): only once a listener will export them. */
export function collectProcessMetrics(): void {
  if (defaultsOn) return;
  defaultsOn = true;
  collectDefaultMetrics({ register: registry, prefix: 'vault_' });
}

const externalSources = new Map<string, string>();

/** Another exporter of this process (the Temporal SDK's) whose text /metrics appends. */
export function addExternalMetrics(name: string, url: string): void {
  externalSources.set(name, url);
}

export function externalMetrics(): ReadonlyMap<string, string> {
  return externalSources;
}
