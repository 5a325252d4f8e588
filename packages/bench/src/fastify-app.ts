/**
 * What `fastify`, `fastify-hooks`, `fastify-pino` and `fastify-h2c` share: the route and the
 * start-up. Synchronous handler + `reply.send`, Fastify's fastest style (as in fastify/benchmarks).
 */
import type { FastifyInstance, RawServerBase } from 'fastify';
import { announce, exitOnSignal, portFromEnv, userOf } from './common.js';

/** Adds `GET /api/users/:id` to `app`, listens on `PORT` and announces it. */
export async function serveUsers<Server extends RawServerBase>(app: FastifyInstance<Server>): Promise<void> {
  app.get<{ Params: { id: string } }>('/api/users/:id', (req, reply) => {
    const id = Number(req.params.id);
    if (!Number.isFinite(id)) void reply.code(404).send({ error: 'Not Found' });
    else void reply.send(userOf(id));
  });
  const address = await app.listen({ port: portFromEnv(), host: '127.0.0.1' });
  announce(Number(new URL(address).port));
  exitOnSignal(() => void app.close());
}
