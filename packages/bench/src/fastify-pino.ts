/**
 * `fastify` with its default pino logger on, request logging included (an "incoming request" and
 * a "request completed" line per request, each request with its `reqId` child logger), at info,
 * into `/dev/null` (an `fs.WriteStream`, as `pipeline-ops` writes): the baseline of issue 24's
 * "no more instructions than Fastify with its default pino logger".
 */
import { createWriteStream } from 'node:fs';
import Fastify from 'fastify';
import { serveUsers } from './fastify-app.js';

await serveUsers(Fastify({ logger: { level: 'info', stream: createWriteStream('/dev/null') } }));
