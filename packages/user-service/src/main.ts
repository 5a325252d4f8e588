#!/usr/bin/env node
/**
 * The reference server: `node packages/user-service/dist/main.js`. Configuration from the
 * environment (README "Configuration"); prints `listening on http://HOST:PORT` (`https://` with TLS) when ready; on
 * SIGTERM / SIGINT drains, flushes the store and logs, as its last line,
 * `{"level":"info","message":"stopped","exitCode":N}`: 0 when every request drained and the store
 * flushed, 1 (with `problems`) when the deadline cut connections or the store could not write.
 */
import 'reflect-metadata';
import { serveOnCores } from '@jaxrs-node/pipeline';
import { ConfigError, loadConfig, redactConfig, type AppConfig } from './domain/config/app-config.js';
import { createService, listenOptions, type Service } from './server.js';

/**
 * `WORKERS` > 1 (etcd only): a supervisor and that many workers on one port, each an instance of
 * the shared store; the supervisor prints `listening on ...` once all listen, forwards SIGTERM and
 * SIGINT, and exits 0 when every worker drained and closed its store.
 */
async function serveWorkers(config: AppConfig): Promise<void> {
  let service: Service | undefined;
  await serveOnCores(
    async () => {
      service = await createService(config);
      return service.app;
    },
    {
      workers: config.workers,
      port: config.port,
      host: config.host,
      shutdownDeadline: config.shutdownDeadlineMs,
      ...listenOptions(config),
      close: async () => (service === undefined ? true : (await service.close()).exitCode === 0),
      printReady: (ready) => `listening on ${ready.url} (${ready.pids.length} workers, ${ready.mode})`,
    },
  );
}

async function main(): Promise<void> {
  const config = await loadConfig(process.env);
  if (config.devDefaults.length > 0) {
    process.stderr.write(
      `${JSON.stringify({ level: 'warn', message: 'development defaults in use (refused with NODE_ENV=production)', variables: config.devDefaults })}\n`,
    );
  }
  if (config.workers !== 1) return serveWorkers(config);
  const service = await createService(config);
  // Handlers first: a supervisor may signal the moment it sees `listening on`.
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`${JSON.stringify({ level: 'info', message: `${signal}: draining` })}\n`);
    service.close().then(
      ({ exitCode, problems }) => {
        const line: Record<string, unknown> = { level: exitCode === 0 ? 'info' : 'error', message: 'stopped', exitCode };
        if (problems.length > 0) line.problems = problems;
        process.stdout.write(`${JSON.stringify(line)}\n`);
        process.exit(exitCode);
      },
      (e: unknown) => {
        process.stderr.write(`${JSON.stringify({ level: 'error', message: 'shutdown failed', error: String(e) })}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  const address = await service.listen();
  process.stdout.write(`${JSON.stringify({ level: 'info', message: 'configuration', config: redactConfig(config) })}\n`);
  const metricsPort = service.metricsPort();
  if (metricsPort !== undefined) process.stdout.write(`metrics on http://${config.host}:${metricsPort}/metrics\n`);
  process.stdout.write(`listening on ${config.tls === undefined ? 'http' : 'https'}://${config.host}:${address.port}\n`);
}

main().catch((e: unknown) => {
  if (e instanceof ConfigError) process.stderr.write(`configuration error: ${e.message}\n`);
  else process.stderr.write(`failed to start: ${(e as Error)?.stack ?? String(e)}\n`);
  process.exit(1);
});
