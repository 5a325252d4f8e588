/**
 * METRICS_PORT: off when unset; a port (0: a free one) for the metrics listener; refused at
 * start-up when it is not a port, equals PORT (the metrics never share the public port), or
 * comes with several workers (each would need its own).
 */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/domain/config/app-config.js';

const BASE = { STORAGE: 'memory', SEED: 'none', TOKEN_SECRET: 'x'.repeat(32), PORT: '8080' };

async function problem(env: Record<string, string>): Promise<string> {
  const error = await loadConfig({ ...BASE, ...env }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConfigError);
  expect((error as ConfigError).variables).toEqual(['METRICS_PORT']);
  return (error as ConfigError).message;
}

describe('METRICS_PORT', () => {
  it('is off when unset or empty, and read as a port otherwise', async () => {
    expect((await loadConfig(BASE)).metricsPort).toBeUndefined();
    expect((await loadConfig({ ...BASE, METRICS_PORT: ' ' })).metricsPort).toBeUndefined();
    expect((await loadConfig({ ...BASE, METRICS_PORT: '9464' })).metricsPort).toBe(9464);
    expect((await loadConfig({ ...BASE, METRICS_PORT: '0' })).metricsPort).toBe(0);
    expect((await loadConfig({ ...BASE, PORT: '0', METRICS_PORT: '0' })).metricsPort).toBe(0);
  });

  it('is refused when it is not a port', async () => {
    expect(await problem({ METRICS_PORT: 'nine' })).toContain('METRICS_PORT: expected an integer from 0 to 65535, got "nine"');
    expect(await problem({ METRICS_PORT: '65536' })).toContain('METRICS_PORT: expected an integer from 0 to 65535, got "65536"');
  });

  it('is refused when it equals PORT', async () => {
    expect(await problem({ METRICS_PORT: '8080' })).toContain(
      'METRICS_PORT: must differ from PORT (8080): the metrics are never served on the public port',
    );
  });

  it('is refused with several workers', async () => {
    const message = await problem({ STORAGE: 'etcd', ETCD_ENDPOINTS: 'http://127.0.0.1:2379', WORKERS: '2', METRICS_PORT: '9464' });
    expect(message).toContain('METRICS_PORT: is served by a single process: unset it or use WORKERS=1');
  });
});
