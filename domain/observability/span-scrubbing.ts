// What leaves the process in a span: names, ids, statuses and timings. Attribute values are kept
// only when they are plain values under a name that is not a credential's (log-redaction.ts);
// objects are dropped (the Temporal workflow exporter copies the whole WorkflowInfo onto its
// spans: memo, search attributes, a previous run's result). Error messages and stacks are dropped
// too: the exception's type and the span's status code say that it failed, the logs and the
// (encrypted) Temporal history say why.
import type { ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { Attributes } from '@opentelemetry/api';
import { isSensitiveField } from './log-redaction.ts';

const DROPPED = new Set(['memo', 'searchAttributes', 'typedSearchAttributes', 'lastResult', 'lastFailure', 'exception.message', 'exception.stacktrace']);

const plain = (v: unknown) => v === null || ['string', 'number', 'boolean'].includes(typeof v);

export function scrubAttributes(attributes: Attributes): Attributes {
  const out: Attributes = {};
  for (const [k, v] of Object.entries(attributes)) {
    if (DROPPED.has(k) || isSensitiveField(k)) continue;
    if (plain(v) || (Array.isArray(v) && v.every(plain))) out[k] = v;
  }
  return out;
}

export function scrubSpan(span: ReadableSpan): ReadableSpan {
  return Object.create(span, {
    attributes: { value: scrubAttributes(span.attributes), enumerable: true },
    events: { value: span.events.map((e) => ({ ...e, attributes: e.attributes && scrubAttributes(e.attributes) })), enumerable: true },
    status: { value: { code: span.status.code }, enumerable: true },
  }) as ReadableSpan;
}

/** Wraps the OTLP exporter: every span (the api's, the worker's, the workflows') passes here. */
export class ScrubbingExporter implements SpanExporter {
  private readonly inner: SpanExporter;

  constructor(inner: SpanExporter) {
    this.inner = inner;
  }

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.inner.export(spans.map(scrubSpan), done);
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}
