// Failures in Temporal history keep their message and stack trace in an encoded payload, so the
// payload codec seals them like every other payload: the default converter stores both in clear,
// and a failed step's error text (an outside service's answer, a path, a name) would be readable
// by anyone who browses history. The stored message reads "Encoded failure"; a client or worker
// with the codec gets the real one back. The SDK loads this module by path
// (`DataConverter.failureConverterPath`, FAILURE_CONVERTER_PATH in payload-codec.ts): in the
// worker and clients, and inside the workflow bundle, where workflows' own failures are built.
// Workflow-safe: it imports only @temporalio/common.
import { DefaultFailureConverter } from '@temporalio/common';

export const failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });
