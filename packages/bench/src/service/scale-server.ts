// Server of service-bench.ts (c): the real composed service (createService: every filter,
// provider and resource) over a MemoryRecordStore pre-seeded with USERS users through
// UserService.create, then listening. Seeding goes through the domain service (not raw store
// writes) so the users index is built exactly as in production.
// Usage: USERS=100000 PORT=0 node --max-old-space-size=8192 dist/service/scale-server.js
//   -> stderr `seeded N users in S s`, stdout `listening on http://127.0.0.1:<port>`
import 'reflect-metadata';
import { seededService } from './seeded-service.js';

const count = Number(process.env.USERS ?? 1000);
if (!Number.isSafeInteger(count) || count < 0 || count > 10_000_000) throw new Error(`bad USERS ${process.env.USERS}`);
const { service, seedSeconds, close } = await seededService(count, { port: process.env.PORT ?? '0', tmpPrefix: 'scale-bench-' });
process.stderr.write(`seeded ${count} users in ${seedSeconds.toFixed(1)} s\n`);
(globalThis as { gc?: () => void }).gc?.();

const { port } = await service.listen();
process.stdout.write(`listening on http://127.0.0.1:${port}\n`);
const stop = () => {
  void close().finally(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
