/** Fastify 5 with one route, no hooks, no schema: a synchronous handler sends the object. */
import Fastify from 'fastify';
import { announce, exitOnSignal, portFromEnv, userOf } from './common.js';

const app = Fastify({ logger: false });

// Synchronous handler + reply.send: Fastify's fastest style (as in fastify/benchmarks).
app.get<{ Params: { id: string } }>('/api/users/:id', (req, reply) => {
  const id = Number(req.params.id);
  if (!Number.isFinite(id)) void reply.code(404).send({ error: 'Not Found' });
  else void reply.send(userOf(id));
});

const address = await app.listen({ port: portFromEnv(), host: '127.0.0.1' });
announce(Number(new URL(address).port));
exitOnSignal(() => void app.close());
