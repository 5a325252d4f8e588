/**
 * Cost of verifying one JWT with a cached key (`pnpm --filter @jaxrs-node/bench run jwt`): the
 * pipeline's `JwtVerifier` against `jose.jwtVerify` (v6) on the SAME RS256 and ES256 tokens, in one
 * process, in alternating rounds so that both see the same machine state. Each verification checks
 * the signature, `exp`, `iss` and `aud`; keys are imported once (the pipeline: static JWKs with a
 * `kid`; jose: `createLocalJWKSet`, and an imported `CryptoKey` for its fastest path). Prints
 * CPU and wall ns/op, the median of the rounds. `JWT_BENCH_SHORT=1` runs a few hundred verifications only.
 */
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { JwtVerifier, type JwtAlgorithm } from '@jaxrs-node/pipeline';
import { createLocalJWKSet, importJWK, jwtVerify, type JWK } from 'jose';

const SHORT = process.env.JWT_BENCH_SHORT === '1';
const OPS = SHORT ? 200 : 20_000;
const ROUNDS = SHORT ? 2 : 7;

const b64 = (v: object): string => Buffer.from(JSON.stringify(v)).toString('base64url');
const now = Math.floor(Date.now() / 1000);
/** Claims a typical access token carries. */
const claims = {
  iss: 'https://id.example.com/',
  aud: 'bench-api',
  sub: 'user-1234',
  scope: 'read write',
  iat: now,
  exp: now + 3600,
  jti: 'a1b2c3d4',
};

interface Case {
  readonly alg: JwtAlgorithm;
  readonly token: string;
  readonly jwk: JWK;
}

function makeCase(alg: 'RS256' | 'ES256'): Case {
  const { privateKey, publicKey } =
    alg === 'RS256' ? generateKeyPairSync('rsa', { modulusLength: 2048 }) : generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const input = `${b64({ alg, kid: 'k1', typ: 'JWT' })}.${b64(claims)}`;
  const sig =
    alg === 'RS256'
      ? sign('sha256', Buffer.from(input), privateKey)
      : sign('sha256', Buffer.from(input), { key: privateKey as KeyObject, dsaEncoding: 'ieee-p1363' });
  return { alg, token: `${input}.${sig.toString('base64url')}`, jwk: { ...(publicKey.export({ format: 'jwk' }) as JWK), kid: 'k1', alg } };
}

type Verify = () => Promise<unknown>;

/**
 * CPU time (every thread of the process: jose's WebCrypto verifies on libuv's thread pool) and
 * wall time per verification, in ns. CPU time is the cost compared: on a shared machine the wall
 * time of an awaited call mostly measures how soon the threads get a core again.
 */
async function time(verify: Verify, ops: number): Promise<{ cpu: number; wall: number }> {
  const cpu0 = process.cpuUsage();
  const start = process.hrtime.bigint();
  for (let i = 0; i < ops; i++) await verify();
  const wall = Number(process.hrtime.bigint() - start) / ops;
  const cpu = process.cpuUsage(cpu0);
  return { cpu: ((cpu.user + cpu.system) * 1000) / ops, wall };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function bench(c: Case): Promise<void> {
  const options = { issuer: claims.iss, audience: claims.aud };
  const pipeline = new JwtVerifier({ algorithms: [c.alg], keys: [c.jwk as Record<string, unknown>], ...options });
  const joseSet = createLocalJWKSet({ keys: [c.jwk] });
  const joseKey = await importJWK(c.jwk, c.alg);
  const contenders: Record<string, Verify> = {
    'pipeline JwtVerifier': () => pipeline.verify(c.token),
    'jose jwtVerify (local JWK Set)': () => jwtVerify(c.token, joseSet, { ...options, algorithms: [c.alg] }),
    'jose jwtVerify (CryptoKey)': () => jwtVerify(c.token, joseKey, { ...options, algorithms: [c.alg] }),
  };
  // Every contender must accept the token before it is timed.
  for (const v of Object.values(contenders)) await v();
  const results = new Map<string, { cpu: number; wall: number }[]>(Object.keys(contenders).map((k) => [k, []]));
  for (let round = 0; round < ROUNDS + 1; round++) {
    const names = Object.keys(contenders);
    if (round % 2 === 1) names.reverse(); // alternate the order, so none always runs first
    for (const name of names) {
      const t = await time(contenders[name]!, OPS);
      if (round > 0) results.get(name)!.push(t); // round 0 warms up
    }
  }
  console.log(`\n${c.alg}: ns per verification, median of ${ROUNDS} rounds of ${OPS} (CPU rounds in brackets)`);
  console.log(`  ${'verifier'.padEnd(34)} ${'CPU'.padStart(8)} ${'wall'.padStart(8)}`);
  for (const [name, xs] of results) {
    const cpu = xs.map((x) => x.cpu);
    console.log(
      `  ${name.padEnd(34)} ${median(cpu).toFixed(0).padStart(8)} ${median(xs.map((x) => x.wall))
        .toFixed(0)
        .padStart(8)}   [${cpu.map((x) => x.toFixed(0)).join(' ')}]`,
    );
  }
}

console.log(`node ${process.version}, ${process.platform}/${process.arch}, claims ${JSON.stringify(claims).length} bytes`);
for (const alg of ['RS256', 'ES256'] as const) await bench(makeCase(alg));
