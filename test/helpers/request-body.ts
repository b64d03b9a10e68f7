// The body of a request to one of the tests' local servers (chain nodes, facilitators): collected
// whole, and a body over `max` bytes ends the connection instead (no answer, as a node would).
import type http from 'node:http';

export function onRequestBody(req: http.IncomingMessage, max: number, done: (body: Buffer) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  req.on('data', (c: Buffer) => {
    size += c.length;
    if (size > max) req.destroy();
    else chunks.push(c);
  });
  req.on('end', () => done(Buffer.concat(chunks)));
}
