// A workflow's history as text, to search it for what must never be there (keys, handles, values):
// once as Temporal stores it (payloads sealed by the stack's codec) and once with every payload
// decoded, so a secret passed as a workflow or activity argument would be found either way. Failures
// (a failed activity, a failed workflow) are listed apart, their text decoded: the failure
// converter stores their message and stack trace as an encrypted payload.
import proto from '@temporalio/proto';
import { Connection, Client } from '@temporalio/client';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { EncryptionCodec } from '../../domain/temporal/payload-codec.ts';
import { stackCodecKey } from './temporal-client.ts';

/** `failures`: each failure's message and stack trace as the codec decodes them (or as stored, if not encoded). */
export type HistoryText = { status: string; stored: string; decoded: string; failures: FailureText[] };
export type FailureText = { stored: { message: string; stackTrace: string }; message: string; stackTrace: string };

export async function historyText(workflowId: string, opts: { address?: string; namespace?: string; dataDir?: string } = {}): Promise<HistoryText> {
  const connection = await Connection.connect({ address: opts.address ?? process.env.TEST_TEMPORAL_ADDRESS! });
  try {
    const raw = new Client({ connection, namespace: opts.namespace ?? 'default' }); // no codec: the history as stored
    const handle = raw.workflow.getHandle(workflowId);
    // The raw describe: the client's own would try to decode the (encrypted) memo without the codec.
    const described = await connection.workflowService.describeWorkflowExecution({ namespace: opts.namespace ?? 'default', execution: { workflowId } });
    const code = described.workflowExecutionInfo?.status ?? 0;
    const status = String(proto.temporal.api.enums.v1.WorkflowExecutionStatus[code]).replace(/^WORKFLOW_EXECUTION_STATUS_/, '');
    const history = await handle.fetchHistory();
    const payloads: Payload[] = [];
    const failures: proto.temporal.api.failure.v1.IFailure[] = [];
    const collect = (node: unknown): void => {
      if (!node || typeof node !== 'object' || ArrayBuffer.isView(node)) return;
      const o = node as Record<string, unknown>;
      if (o.metadata && typeof o.metadata === 'object' && (o.metadata as Record<string, unknown>).encoding && ArrayBuffer.isView(o.data)) {
        payloads.push(o as Payload);
        return;
      }
      if (typeof o.source === 'string' && 'message' in o && 'stackTrace' in o) failures.push(o); // a Failure (its causes are walked too)
      for (const v of Object.values(o)) collect(v);
    };
    collect(history.events);
    const codec = new EncryptionCodec(stackCodecKey(opts.dataDir));
    const decoded = await codec.decode(payloads);
    return {
      status, stored: historyToJSON(history), decoded: JSON.stringify(decoded.map((p) => defaultPayloadConverter.fromPayload(p))),
      failures: await Promise.all(failures.map((f) => failureText(f, codec))),
    };
  } finally {
    await connection.close();
  }
}

async function failureText(f: proto.temporal.api.failure.v1.IFailure, codec: EncryptionCodec): Promise<FailureText> {
  const stored = { message: f.message ?? '', stackTrace: f.stackTrace ?? '' };
  if (!f.encodedAttributes) return { stored, ...stored };
  const [plain] = await codec.decode([f.encodedAttributes as Payload]);
  const attrs = defaultPayloadConverter.fromPayload<{ message?: string; stack_trace?: string }>(plain!);
  return { stored, message: attrs.message ?? '', stackTrace: attrs.stack_trace ?? '' };
}

/** How activities were retried in a workflow's history (an attempt > 1 carries the previous attempt's failure), for a test's report. */
export async function activityRetries(client: Client, workflowId: string): Promise<string[]> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).map((e) => e.activityTaskStartedEventAttributes).filter((a) => a && (a.attempt ?? 1) > 1).map((a) => {
    const type = a!.lastFailure?.timeoutFailureInfo?.timeoutType;
    return `attempt ${a!.attempt} after ${type == null ? String(a!.lastFailure?.message ?? 'a failure') : String(proto.temporal.api.enums.v1.TimeoutType[type])}`;
  });
}
