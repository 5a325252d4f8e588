/**
 * Issue 24, RequestIdFeature's default generator: RFC 9562 version 8 UUIDs, 74 random bits per
 * generator then a 48-bit counter, so an id costs no random bytes per request; the format of
 * `crypto.randomUUID` (what clients and log pipelines expect of an X-Request-Id).
 */
import 'reflect-metadata';
import { describe, expect, it } from 'vitest';
import { Application, GET, Path, RequestIdFeature } from '../../../../src/index.js';
import { uuidSequence } from '../../../../src/features/logging/request-id.js';

/** RFC 9562 §4: 8-4-4-4-12 lower-case hex, version 8 (§5.8), variant 10xx (§4.1). */
const V8_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

@Path('/ping')
class Ping {
  @GET()
  ping(): string {
    return 'pong';
  }
}

describe('the default request id generator', () => {
  it('makes distinct version 8 UUIDs sharing their random part, counting in the last 12 digits', () => {
    const next = uuidSequence();
    const ids = Array.from({ length: 50_000 }, next);
    for (const id of ids.slice(0, 100)) expect(id).toMatch(V8_UUID);
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(ids.map((id) => id.slice(0, 24))).size).toBe(1);
    expect(parseInt(ids[1]!.slice(24), 16) - parseInt(ids[0]!.slice(24), 16)).toBe(1);
    // Another generator (another process, a restart) draws another random part.
    expect(uuidSequence()().slice(0, 24)).not.toBe(ids[0]!.slice(0, 24));
  });

  it('takes its random part from the bytes it is given and carries from the low 24 bits of the counter into the high ones', () => {
    const bytes = Buffer.from('00112233445566778899aabbccddeeff', 'hex');
    bytes.fill(0xff, 9, 16); // counter start: low ffffff, high 7fffff (its top bit cleared)
    const next = uuidSequence(bytes);
    const first = next();
    expect(first).toMatch(V8_UUID);
    expect(first.slice(0, 24)).toBe('00112233-4455-8667-b88f-');
    expect(first.slice(24)).toBe('800000000000');
    expect(next().slice(24)).toBe('800000000001');
  });

  it('is what RequestIdFeature gives a request without a usable id, echoed', async () => {
    const app = new Application({ resources: [Ping], providers: [new RequestIdFeature()] });
    const a = await app.inject('/ping');
    const b = await app.inject({ url: '/ping', headers: { 'x-request-id': 'bad id' } });
    expect(a.headers['x-request-id']).toMatch(V8_UUID);
    expect(b.headers['x-request-id']).toMatch(V8_UUID);
    expect(b.headers['x-request-id']).not.toBe(a.headers['x-request-id']);
  });
});
