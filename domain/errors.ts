// The one error type services throw. The error middleware renders it as RFC 9457
// problem details; anything else becomes a 500 whose detail never reaches the client.
export type ProblemExtras = Record<string, unknown>;

export class Problem extends Error {
  readonly status: number;
  readonly type: string;
  readonly title: string;
  readonly detail: string;
  readonly extras: ProblemExtras;
  readonly headers: Record<string, string>;

  constructor(status: number, detail: string, opts: { type?: string; title?: string; extras?: ProblemExtras; headers?: Record<string, string> } = {}) {
    super(detail);
    this.status = status;
    this.type = opts.type ?? 'about:blank';
    this.title = opts.title ?? STATUS_TITLES[status] ?? 'Error';
    this.detail = detail;
    this.extras = opts.extras ?? {};
    this.headers = opts.headers ?? {};
  }
}

export const STATUS_TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  402: 'Payment Required',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  410: 'Gone',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  503: 'Service Unavailable',
};

export const badRequest = (detail: string, extras?: ProblemExtras) => new Problem(400, detail, { extras });
export const unauthorized = (detail = 'Authentication required') => new Problem(401, detail);
export const forbidden = (detail: string) => new Problem(403, detail);
export const notFound = (what = 'Resource') => new Problem(404, `${what} not found`);
export const conflict = (detail: string) => new Problem(409, detail);
export const gone = (detail: string) => new Problem(410, detail);
/** A 400 that names the field, shaped like the input validator's (`errors: [{field, message}]`). */
export const invalidField = (field: string, message: string) => badRequest(`${field}: ${message}`, { errors: [{ field, message }] });
