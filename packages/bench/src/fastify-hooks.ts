/**
 * Fastify 5 with the same two pieces of work as the filters: an `onRequest` hook (refuse a
 * request carrying a header, remember the start time) and an `onSend` hook (add
 * `x-response-time`). Callback-style hooks, as Fastify recommends for synchronous work.
 */
import Fastify from 'fastify';
import { announce, elapsed, exitOnSignal, portFromEnv, REJECT_HEADER, TIME_HEADER, userOf } from './common.js';

declare module 'fastify' {
  interface FastifyRequest { benchStart: number }
}

const app = Fastify({ logger: false });
// Declared up front so every request object keeps one shape.
app.decorateRequest('benchStart', 0);

app.addHook('onRequest', (req, reply, done) => {
  req.benchStart = performance.now();
  if (req.headers[REJECT_HEADER] !== undefined) {
    void reply.code(403).send({ error: 'Forbidden' });
    return;
  }
  done();
});

app.addHook('onSend', (req, reply, payload, done) => {
  void reply.header(TIME_HEADER, elapsed(req.benchStart));
  done(null, payload);
});

// Synchronous handler + reply.send: Fastify's fastest style (as in fastify/benchmarks).
app.get<{ Params: { id: string } }>('/api/users/:id', (req, reply) => {
  const id = Number(req.params.id);
  if (!Number.isFinite(id)) void reply.code(404).send({ error: 'Not Found' });
  else void reply.send(userOf(id));
});

const address = await app.listen({ port: portFromEnv(), host: '127.0.0.1' });
announce(Number(new URL(address).port));
exitOnSignal(() => void app.close());
