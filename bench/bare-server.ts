/**
 * The ceiling for small queries: bare node:http in a process of its own, answering every request with
 * the status, headers and body of one real Siphon response (read from the JSON file given as the only
 * argument), so the bytes on the wire and the header block have the same size. Node adds Date and
 * Connection/Keep-Alive itself, as it does for Siphon; a body Siphon sent chunked is sent chunked.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { RecordedResponse } from './recorded-response.js';

const recorded = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as RecordedResponse;
const body = Buffer.from(recorded.body);
const server = http.createServer((_req, res) => {
  res.statusCode = recorded.status;
  for (const [name, value] of recorded.headers) res.setHeader(name, value);
  if (recorded.chunked) {
    res.write(body);
    res.end();
  } else {
    res.end(body);
  }
});
server.keepAliveTimeout = 72_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object') process.stdout.write(`listening at http://127.0.0.1:${address.port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
