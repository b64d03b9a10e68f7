// Stopping the HTTP server without cutting anyone off. server.close() only stops new connections
// and closes the ones idle at that moment: a keep-alive client that keeps sending would be served
// until the stop deadline cut it mid-request. Once draining, every answer says
// `Connection: close` (Node then ends the socket after it) and answers already under way close
// their connection when they finish. New connections are refused at once, but a connection that
// is idle is not closed at once: its client may be writing its next request on it that very
// moment (and would read a reset), so it gets IDLE_GRACE_MS to do so and be answered with
// `Connection: close`; then the connections still idle close, and the close resolves when the
// last connection has gone.
import type http from 'node:http';
import net from 'node:net';

/** How long an idle keep-alive connection may still bring a request once the stop began. */
const IDLE_GRACE_MS = 1_000;

export class ConnectionDrain {
  private draining = false;
  private readonly answering = new Set<http.ServerResponse>();

  /** Every request, before it is handled. */
  admit(res: http.ServerResponse): void {
    if (this.draining) res.setHeader('connection', 'close');
    this.answering.add(res);
    res.once('close', () => this.answering.delete(res));
  }

  /** Closes `server` gracefully; resolves once every connection is closed. */
  async close(server: http.Server): Promise<void> {
    this.draining = true;
    for (const res of this.answering) {
      if (!res.headersSent) res.setHeader('connection', 'close');
      else res.once('finish', () => res.socket?.end());
    }
    // net.Server's close: stop listening, and call back once every connection has ended. (The
    // http.Server override also closes the idle ones at once, which is what must wait.)
    const closed = new Promise<void>((resolve) => net.Server.prototype.close.call(server, () => resolve()));
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([closed, new Promise((resolve) => { timer = setTimeout(resolve, IDLE_GRACE_MS); })]);
    clearTimeout(timer);
    server.closeIdleConnections();
    await closed;
  }
}
