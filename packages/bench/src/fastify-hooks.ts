/**
 * Fastify 5 with the same two pieces of work as the filters: an `onRequest` hook (refuse a
 * request carrying a header, leave a value on the request) and an `onSend` hook (send it as a
 * header), per `BENCH_FILTERS` (common.ts). Callback-style hooks, as Fastify recommends for
 * synchronous work.
 */
import Fastify from 'fastify';
import { FILTER_HEADER, filterHeaderValue, refused, sendsFilterHeader, stamp } from './common.js';
import { serveUsers } from './fastify-app.js';

declare module 'fastify' {
  interface FastifyRequest {
    benchStamp: number | string;
  }
}

const app = Fastify({ logger: false });
// Declared up front so every request object keeps one shape.
app.decorateRequest('benchStamp', '');

app.addHook('onRequest', (req, reply, done) => {
  req.benchStamp = stamp();
  if (refused(req.url, (name) => req.headers[name])) {
    void reply.code(403).send({ error: 'Forbidden' });
    return;
  }
  done();
});

app.addHook('onSend', (req, reply, payload, done) => {
  if (sendsFilterHeader(reply.statusCode)) void reply.header(FILTER_HEADER, filterHeaderValue(req.benchStamp));
  done(null, payload);
});

await serveUsers(app);
