/**
 * The real composed service (createService: every filter, provider and resource) over a
 * MemoryRecordStore seeded with users through UserService.create, for the runners that need the
 * service with data in it (scale-server.ts, compression.ts). Seeding goes through the domain
 * service, not raw store writes, so the users index is built exactly as in production.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serviceModules } from './service-paths.js';

type UserService = InstanceType<Awaited<ReturnType<typeof serviceModules.users>>['UserService']>;
type Service = Awaited<ReturnType<Awaited<ReturnType<typeof serviceModules.server>>['createService']>>;

/** A started (not yet listening) seeded service. */
export interface SeededService {
  service: Service;
  /** Seconds the seeding took (the users' creation only). */
  seedSeconds: number;
  /** Closes the service, then removes its temporary data directory (also when closing fails). */
  close: () => Promise<void>;
}

/**
 * Creates the service on a fresh temporary `DATA_DIR` (named `tmpPrefix` + random; memory storage,
 * no seed, rate limit and access log off, `port` as PORT on 127.0.0.1) and creates `count` users:
 * `user<i>@example.com`, ten first names, last names spread so sorting by lastName has real work,
 * ages 18 to 100. No e-mail contains "nomatch".
 */
export async function seededService(
  count: number,
  { port = '0', tmpPrefix }: { port?: string; tmpPrefix: string },
): Promise<SeededService> {
  const { loadConfig } = await serviceModules.config();
  const { TOKENS } = await serviceModules.diTokens();
  const { createService } = await serviceModules.server();
  const { MemoryRecordStore } = await serviceModules.storage();
  const dataDir = mkdtempSync(join(tmpdir(), tmpPrefix));
  const config = await loadConfig({
    DATA_DIR: dataDir,
    PORT: port,
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
    await users.create({
      email: `user${i}@example.com`,
      firstName: names[i % names.length] ?? '',
      lastName: `${names[(i * 7) % names.length] ?? ''}${(i * 7919) % 100_000}`,
      age: 18 + (i % 83),
    });
  }
  const seedSeconds = (performance.now() - t0) / 1000;
  const close = async (): Promise<void> => {
    try {
      await service.close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  };
  return { service, seedSeconds, close };
}
