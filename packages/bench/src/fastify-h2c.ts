/**
 * Fastify 5's HTTP/2 server in clear text (`Fastify({ http2: true })`, h2c): the route of
 * `fastify` (fastify-app.ts), written again because an HTTP/2 instance has other request types.
 */
import Fastify from 'fastify';
import { announce, exitOnSignal, portFromEnv, userOf } from './common.js';

const app = Fastify({ logger: false, http2: true });
app.get<{ Params: { id: string } }>('/api/users/:id', (req, reply) => {
  const id = Number(req.params.id);
  if (!Number.isFinite(id)) void reply.code(404).send({ error: 'Not Found' });
  else void reply.send(userOf(id));
});
const address = await app.listen({ port: portFromEnv(), host: '127.0.0.1' });
announce(Number(new URL(address).port));
exitOnSignal(() => void app.close());
