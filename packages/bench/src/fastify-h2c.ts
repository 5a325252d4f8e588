/**
 * Fastify 5's HTTP/2 server in clear text (`Fastify({ http2: true })`, h2c) with the route of
 * `fastify` (fastify-app.ts).
 */
import Fastify from 'fastify';
import { serveUsers } from './fastify-app.js';

await serveUsers(Fastify({ logger: false, http2: true }));
