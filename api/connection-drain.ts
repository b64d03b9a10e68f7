// Stopping the HTTP server without cutting anyone off. server.close() only stops new connections
// and closes the ones idle at that moment: a keep-alive client that keeps sending would be served
// until the stop deadline cut it mid-request. Once draining, every answer says
// `Connection: close` (Node then ends the socket after it), answers already under way close their
// connection when they finish, and idle connections are closed; the server's close callback fires
// when the last connection has gone.
import type http from 'node:http';

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
  close(server: http.Server): Promise<void> {
    this.draining = true;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const res of this.answering) {
      if (!res.headersSent) res.setHeader('connection', 'close');
      else res.once('finish', () => res.socket?.end());
    }
    server.closeIdleConnections();
    return closed;
  }
}
