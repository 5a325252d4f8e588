import type { Application } from '@jaxrs-node/pipeline';

/**
 * Starts an example on `PORT` (default 3000; `0` picks a free port) and prints the address, so
 * every `main.ts` is two lines. Ctrl-C (SIGINT) or SIGTERM closes gracefully: new requests get
 * 503, in-flight ones finish, then the process exits.
 * @example
 * await serve(createApp()); // listening on http://127.0.0.1:3000
 */
export async function serve(app: Application, port: number = portFromEnv()): Promise<void> {
  const address = await app.listen(port, '127.0.0.1');
  console.log(`listening on http://127.0.0.1:${address.port}`);
  const stop = (): void => {
    void app.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

/** `PORT` as a TCP port number; a typo fails loudly instead of silently picking 3000. */
export function portFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.PORT;
  if (raw === undefined || raw === '') return 3000;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new RangeError(`PORT must be 0-65535, got ${JSON.stringify(raw)}`);
  return port;
}
