/**
 * `pipeline` with the security features on: `RateLimitFeature` (every route, keyed by address,
 * a limit no run reaches, so every request is counted and admitted, with the draft's two headers)
 * and `SecurityHeadersFeature` (its defaults). Compared with `pipeline` by `instructions` to show
 * what a GET pays for them (pipeline docs/rate-limits.md, "What it costs"). `SECURE_PARTS=limits`
 * or `headers` keeps one of the two, to tell their costs apart (a `BENCH_EXTRA` entry with `env`).
 */
import { Application, RateLimitFeature, RateLimitKeys, SecurityHeadersFeature } from '@jaxrs-node/pipeline';
import { announce, exitOnSignal, portFromEnv } from './common.js';
import { UserResource } from './resource.js';

const parts = process.env.SECURE_PARTS ?? 'limits,headers';
const app = new Application({
  resources: [UserResource],
  providers: [
    ...(parts.includes('limits')
      ? [new RateLimitFeature({ key: RateLimitKeys.address, default: { limit: 1_000_000_000, windowMs: 60_000 } })]
      : []),
    ...(parts.includes('headers') ? [new SecurityHeadersFeature()] : []),
  ],
});
const { port } = await app.listen(portFromEnv(), '127.0.0.1');
announce(port);
exitOnSignal(() => void app.close(200));
