// Server of the service's instruction counts (`servers.service.json`, `run instructions`): the
// composed service (createService: every filter, provider and resource), configured from the
// environment as `dist/main.js` is, in a fresh temporary DATA_DIR unless one is given, with
//   SERVICE_WITHOUT  comma list of providers left out (the service's OPTIONAL_PROVIDERS: request-id,
//                    api-version, durability, service-headers, security-headers, cors,
//                    content-encoding), to count what each costs per request; the access log, the
//                    rate limit and metrics are switched by the service's own LOG_REQUESTS,
//                    RATE_LIMIT_PER_MINUTE and METRICS_PORT;
//   USERS            users created through UserService before it listens (the sorted page's data).
// Usage: STORAGE=memory SEED=none USERS=1000 PORT=0 node dist/service/instr-server.js
//   -> stdout `listening on http://127.0.0.1:<port>`; SIGTERM closes the service.
import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serviceModules } from './service-paths.js';

const { loadConfig } = await serviceModules.config();
const { TOKENS } = await serviceModules.diTokens();
const { createService, OPTIONAL_PROVIDERS } = await serviceModules.server();
type UserService = InstanceType<Awaited<ReturnType<typeof serviceModules.users>>['UserService']>;
type OptionalProvider = (typeof OPTIONAL_PROVIDERS)[number];

const isOptional = (name: string): name is OptionalProvider => (OPTIONAL_PROVIDERS as readonly string[]).includes(name);
const without = (process.env.SERVICE_WITHOUT ?? '')
  .split(',')
  .map((s) => s.trim())
  .filter((s) => s !== '')
  .map((name) => {
    if (!isOptional(name)) throw new Error(`SERVICE_WITHOUT: ${name} is none of ${OPTIONAL_PROVIDERS.join(', ')}`);
    return name;
  });
const count = Number(process.env.USERS ?? 0);
if (!Number.isSafeInteger(count) || count < 0 || count > 1_000_000) throw new Error(`bad USERS ${process.env.USERS}`);

const ownDir = process.env.DATA_DIR === undefined ? mkdtempSync(join(tmpdir(), 'instr-service-')) : undefined;
const config = await loadConfig({ ...process.env, ...(ownDir === undefined ? {} : { DATA_DIR: ownDir }) });
const service = await createService(config, { without });
const users = service.container.resolve<UserService>(TOKENS.users);
const names = ['Ann', 'Bob', 'Cyd', 'Dee', 'Eve', 'Flo', 'Gus', 'Hal', 'Ivy', 'Jo'];
for (let i = 0; i < count; i++) {
  // Last names spread as in scale-server.ts, so a page sorted by lastName has real work.
  await users.create({
    email: `user${i}@example.com`,
    firstName: names[i % names.length] ?? '',
    lastName: `${names[(i * 7) % names.length] ?? ''}${(i * 7919) % 100_000}`,
    age: 18 + (i % 83),
  });
}
await service.indexed;

const { port } = await service.listen();
process.stdout.write(`listening on http://127.0.0.1:${port}\n`);
const stop = (): void => {
  void service.close().finally(() => {
    if (ownDir !== undefined) rmSync(ownDir, { recursive: true, force: true });
    process.exit(0);
  });
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
