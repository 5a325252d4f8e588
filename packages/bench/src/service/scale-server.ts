// Server of service-bench.ts (c): the real composed service (createService: every filter,
// provider and resource) over a MemoryRecordStore pre-seeded with USERS users through
// UserService.create, then listening. Seeding goes through the domain service (not raw store
// writes) so the users index is built exactly as in production.
// Usage: USERS=100000 PORT=0 node --max-old-space-size=8192 dist/service/scale-server.js
//   -> stderr `seeded N users in S s`, stdout `listening on http://127.0.0.1:<port>`
import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serviceModules } from './service-paths.js';

const { loadConfig } = await serviceModules.config();
const { TOKENS } = await serviceModules.diTokens();
const { createService } = await serviceModules.server();
const { MemoryRecordStore } = await serviceModules.storage();
type UserService = InstanceType<Awaited<ReturnType<typeof serviceModules.users>>['UserService']>;

const count = Number(process.env.USERS ?? 1000);
if (!Number.isSafeInteger(count) || count < 0 || count > 10_000_000) throw new Error(`bad USERS ${process.env.USERS}`);
const dataDir = mkdtempSync(join(tmpdir(), 'scale-bench-'));
const config = await loadConfig({
  DATA_DIR: dataDir,
  PORT: process.env.PORT ?? '0',
  HOST: '127.0.0.1',
  SEED: 'none',
  STORAGE: 'memory',
  RATE_LIMIT_PER_MINUTE: '0',
  LOG_REQUESTS: 'false',
});
const service = await createService(config, { store: new MemoryRecordStore(), log: null });
const users = service.container.resolve<UserService>(TOKENS.users);

const names = ['Ann', 'Bob', 'Cyd', 'Dee', 'Eve', 'Flo', 'Gus', 'Hal', 'Ivy', 'Jo'];
const t0 = performance.now();
for (let i = 0; i < count; i++) {
  // Spread last names so sorting by lastName has real work; emails never contain "nomatch".
  await users.create({
    email: `user${i}@example.com`,
    firstName: names[i % names.length] ?? '',
    lastName: `${names[(i * 7) % names.length] ?? ''}${(i * 7919) % 100_000}`,
    age: 18 + (i % 83),
  });
}
process.stderr.write(`seeded ${count} users in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
(globalThis as { gc?: () => void }).gc?.();

const { port } = await service.listen();
process.stdout.write(`listening on http://127.0.0.1:${port}\n`);
const stop = () => {
  void service.close().finally(() => {
    rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  });
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
