/**
 * TLS_CERT_FILE / TLS_KEY_FILE and HTTP2: read and checked at start-up (both or neither, readable,
 * PEM, the key the certificate's own), the key never in the logged configuration.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, redactConfig } from '../../../src/domain/config/app-config.js';
import { OTHER_KEY_FILE, TEST_CERT_FILE, TEST_KEY_FILE } from '../../helpers/tls.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tls-config-test-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function problem(env: NodeJS.ProcessEnv): Promise<ConfigError> {
  const err = await loadConfig({ DATA_DIR: dir, ...env }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ConfigError);
  return err as ConfigError;
}

describe('TLS_CERT_FILE, TLS_KEY_FILE and HTTP2', () => {
  it('default to plain HTTP/1.1', async () => {
    const config = await loadConfig({ DATA_DIR: dir });
    expect(config.tls).toBeUndefined();
    expect(config.http2).toBe(false);
  });

  it('load a matching certificate and key, and keep the key out of the logged configuration', async () => {
    const config = await loadConfig({ DATA_DIR: dir, TLS_CERT_FILE: TEST_CERT_FILE, TLS_KEY_FILE: TEST_KEY_FILE, HTTP2: 'true' });
    expect(config.tls?.cert).toContain('BEGIN CERTIFICATE');
    expect(config.http2).toBe(true);
    const logged = JSON.stringify(redactConfig(config));
    expect(logged).not.toContain('PRIVATE KEY');
    expect(logged).toContain(TEST_KEY_FILE);
  });

  it('refuse one without the other, naming the missing variable', async () => {
    const noKey = await problem({ TLS_CERT_FILE: TEST_CERT_FILE });
    expect(noKey.variables).toEqual(['TLS_KEY_FILE']);
    expect(noKey.message).toMatch(/TLS_KEY_FILE: required with TLS_CERT_FILE/);
    const noCert = await problem({ TLS_KEY_FILE: TEST_KEY_FILE });
    expect(noCert.variables).toEqual(['TLS_CERT_FILE']);
  });

  it('refuse an unreadable or missing file', async () => {
    const missing = await problem({ TLS_CERT_FILE: join(dir, 'nope.pem'), TLS_KEY_FILE: TEST_KEY_FILE });
    expect(missing.variables).toEqual(['TLS_CERT_FILE']);
    expect(missing.message).toMatch(/nope\.pem does not exist/);
    const unreadable = await problem({ TLS_CERT_FILE: TEST_CERT_FILE, TLS_KEY_FILE: dir });
    expect(unreadable.variables).toEqual(['TLS_KEY_FILE']);
    expect(unreadable.message).toMatch(/cannot read/);
  });

  it('refuse a file that is no PEM certificate, and a key that is not the certificate’s', async () => {
    const garbage = join(dir, 'garbage.pem');
    await writeFile(garbage, 'not a certificate');
    expect((await problem({ TLS_CERT_FILE: garbage, TLS_KEY_FILE: TEST_KEY_FILE })).message).toMatch(/holds no PEM certificate/);
    const mismatch = await problem({ TLS_CERT_FILE: TEST_CERT_FILE, TLS_KEY_FILE: OTHER_KEY_FILE });
    expect(mismatch.variables).toEqual(['TLS_KEY_FILE']);
    expect(mismatch.message).toMatch(/is not the private key of the certificate in TLS_CERT_FILE/);
  });

  it('refuse an HTTP2 value that is not a boolean', async () => {
    expect((await problem({ HTTP2: 'maybe' })).variables).toEqual(['HTTP2']);
  });
});
