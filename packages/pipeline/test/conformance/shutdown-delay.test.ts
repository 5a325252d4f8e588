// The shutdown delay (limits.shutdownDelay / close(deadline, { delayMs })): for that long after
// close() the application serves as usual, new connections included, while readiness reports
// the close, so a kubelet probing on a fresh connection each time sees ready DOWN and live UP;
// then the close proper begins and new connections are refused.
import 'reflect-metadata';
import { Agent, request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { Application, GET, HealthFeature, Path } from '../../src/index.js';

@Path('/fast')
class Fast {
  @GET() get(): unknown {
    return { fast: true };
  }
}

const agents: Agent[] = [];
afterEach(async () => {
  await Promise.all(agents.splice(0).map((a) => a.close()));
});

/** A GET on a connection of its own, as a kubelet probes. */
async function fresh(port: number, path: string): Promise<{ status: number; body: unknown }> {
  const agent = new Agent({ pipelining: 0 });
  agents.push(agent);
  const res = await request(`http://127.0.0.1:${port}${path}`, { dispatcher: agent, headers: { connection: 'close' } });
  return { status: res.statusCode, body: await res.body.json() };
}

describe('shutdown delay', () => {
  it('serves as usual on new connections with readiness DOWN, then refuses connections', async () => {
    const app = new Application({ resources: [Fast], providers: [new HealthFeature()], logger: () => undefined });
    const { port } = await app.listen(0);
    expect((await fresh(port, '/health/ready')).status).toBe(200);
    const closed = app.close(5_000, { delayMs: 3_000 });
    expect(app.close()).toBe(closed);
    const ready = await fresh(port, '/health/ready');
    expect(ready.status).toBe(503);
    expect(ready.body).toMatchObject({ status: 'DOWN', checks: [{ name: 'draining', status: 'DOWN' }] });
    expect(await fresh(port, '/health/live')).toMatchObject({ status: 200, body: { status: 'UP' } });
    expect(await fresh(port, '/fast')).toEqual({ status: 200, body: { fast: true } });
    expect(await closed).toEqual({ drained: true, cutConnections: 0 });
    await expect(fresh(port, '/fast')).rejects.toThrow(/ECONNREFUSED|other side closed|SocketError/);
  });

  it('is a limit, validated with the others', () => {
    expect(new Application({ limits: { shutdownDelay: 2_000 } }).limits.shutdownDelay).toBe(2_000);
    expect(() => new Application({ limits: { shutdownDelay: -1 } })).toThrow('limits.shutdownDelay must be a non-negative integer');
  });

  it('without a delay, readiness is DOWN and new requests are refused from the first moment (in-process)', async () => {
    const app = new Application({ resources: [Fast], providers: [new HealthFeature()], logger: () => undefined });
    const closed = app.close(1_000);
    expect((await app.inject('/fast')).status).toBe(503);
    expect((await app.inject('/health/ready')).status).toBe(503);
    expect((await app.inject('/health/live')).status).toBe(200);
    await closed;
  });
});
