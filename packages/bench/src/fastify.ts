/** Fastify 5 with one route, no hooks, no schema: a synchronous handler sends the object. */
import Fastify from 'fastify';
import { serveUsers } from './fastify-app.js';

await serveUsers(Fastify({ logger: false }));
