// What the API answered when it refused: its RFC 9457 problem details, carried to the assistant
// as they are (status, title, detail and any named members such as `errors` or `guardrail`).
// Problems never hold secret values, so passing them on leaks nothing.
export type ProblemDetail = { type: string; title: string; status: number; detail: string; [member: string]: unknown };

export class ApiError extends Error {
  readonly problem: ProblemDetail;

  constructor(problem: ProblemDetail) {
    super(`${problem.status} ${problem.title}: ${problem.detail}`);
    this.problem = problem;
  }

  get status(): number {
    return this.problem.status;
  }
}

/** The problem in a response body, or a plain one when the body is not problem details (a proxy's page). */
export function problemOf(status: number, statusText: string, body: unknown): ProblemDetail {
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    const b = body as Record<string, unknown>;
    if (typeof b.detail === 'string' || typeof b.title === 'string') {
      return {
        ...b,
        type: typeof b.type === 'string' ? b.type : 'about:blank',
        title: typeof b.title === 'string' ? b.title : statusText || 'Error',
        status: typeof b.status === 'number' ? b.status : status,
        detail: typeof b.detail === 'string' ? b.detail : '',
      };
    }
  }
  // The body itself is not passed on: it is not ours and may be anything.
  return { type: 'about:blank', title: statusText || 'Error', status, detail: `The API answered ${status} without problem details` };
}

/** The API could not be reached at all (refused, reset, timed out). */
export function unreachable(apiUrl: string, cause: unknown): ApiError {
  const e = cause as { name?: string; cause?: { code?: string; message?: string } } | undefined;
  const code = e?.name === 'TimeoutError' ? 'timed out' : e?.cause?.code ?? e?.cause?.message ?? e?.name ?? 'error';
  return new ApiError({
    type: 'about:blank', title: 'Service Unavailable', status: 503,
    detail: `The vault API at ${apiUrl} could not be reached (${code})`,
  });
}
