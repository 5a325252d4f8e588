/**
 * `TRACING=true` loads `@jaxrs-node/pipeline/otel` only then; without `@opentelemetry/api` the
 * service refuses to start with a configuration error naming the variable and the package.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/domain/config/app-config.js';
import { loadTracing } from '../../src/http/tracing.js';

describe('loadTracing', () => {
  it('gives the server feature and the client provider when the entry loads', async () => {
    const tracing = await loadTracing();
    expect(tracing.feature.constructor.name).toBe('TracingFeature');
    expect(tracing.client.constructor.name).toBe('ClientTracing');
  });

  it('turns the missing peer into a ConfigError naming TRACING and the package to install', async () => {
    const missing = new Error('@jaxrs-node/pipeline/otel needs the package @opentelemetry/api (an optional peer dependency ...)');
    const error = await loadTracing(() => Promise.reject(missing)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variables).toEqual(['TRACING']);
    expect((error as Error).message).toContain('npm install @opentelemetry/api');
    expect((error as Error).message).toContain('TRACING=false');
  });

  it('lets any other failure through as it is', async () => {
    const other = new Error('disk on fire');
    await expect(loadTracing(() => Promise.reject(other))).rejects.toBe(other);
  });
});
