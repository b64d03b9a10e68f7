// Errors that mean the database cannot be reached right now (stopped, restarting, out of
// connections, the network between): the request may succeed if tried again shortly, so the
// api answers 503 with Retry-After instead of a 500. Causes are followed through MikroORM's
// wrappers (`cause`, `previous`).

/** Node's socket errors of a connection that could not be made or was cut. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
/** SQLSTATEs: class 08 (connection exception), shutdown and start-up (57P01–57P03), too many connections. */
const UNAVAILABLE_SQLSTATE = /^(08...|57P0[1-3]|53300)$/;
/** What node-postgres says when a connection ends or cannot be had, with no code of its own. */
const PG_MESSAGES = [/Connection terminated/i, /timeout exceeded when trying to connect/i, /Client has encountered a connection error/i,
  /Client was closed and is not queryable/i, /Connection closed/i, /the database system is (starting up|shutting down|in recovery mode)/i];

export function isDatabaseUnavailable(e: unknown): boolean {
  for (let cur = e, depth = 0; cur !== null && typeof cur === 'object' && depth < 6; depth++) {
    const x = cur as { code?: unknown; message?: unknown; name?: unknown; cause?: unknown; previous?: unknown };
    if (typeof x.code === 'string' && (SOCKET_CODES.has(x.code) || UNAVAILABLE_SQLSTATE.test(x.code))) return true;
    if (x.name === 'ConnectionException') return true; // MikroORM's own word for it
    if (typeof x.message === 'string' && PG_MESSAGES.some((m) => m.test(x.message as string))) return true;
    cur = x.cause ?? x.previous;
  }
  return false;
}

/** How long a client should wait before trying again, in seconds. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;
