// The observability variables (logs, metrics, traces), read once at start like domain/config.ts
// and refused there the same way when wrong. Kept apart from the service's configuration: every
// process reads them (api, worker, the dev launcher), and none of the domain needs them.
import { z } from 'zod';
import { parseEnv } from '../config.ts';

const Schema = z.object({
  // Unset: no metrics listener at all. 0 picks a free port (logged), for tests.
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  // Share of successful requests that get an access line; 4xx and 5xx always do.
  LOG_ACCESS_SAMPLE: z.coerce.number().min(0).max(1).default(1),
});

export type ObservabilitySettings = {
  /** Where GET /metrics listens; null: nowhere. */
  metrics: { host: string; port: number } | null;
  /** 0..1: the share of 2xx/3xx access lines written. */
  accessSample: number;
  /** An OTLP endpoint is configured and the SDK is not disabled: traces are exported. */
  tracing: boolean;
};

export function loadObservabilitySettings(env: NodeJS.ProcessEnv = process.env): ObservabilitySettings {
  const e = parseEnv(Schema, env);
  return {
    metrics: e.METRICS_PORT === undefined ? null : { host: e.METRICS_HOST, port: e.METRICS_PORT },
    accessSample: e.LOG_ACCESS_SAMPLE,
    tracing: tracingConfigured(env),
  };
}

/** The standard variables the OTLP exporter reads: an endpoint, and the SDK not switched off. */
export function tracingConfigured(env: NodeJS.ProcessEnv): boolean {
  if ((env.OTEL_SDK_DISABLED ?? '').toLowerCase() === 'true') return false;
  if ((env.OTEL_TRACES_EXPORTER ?? '').toLowerCase() === 'none') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT);
}
