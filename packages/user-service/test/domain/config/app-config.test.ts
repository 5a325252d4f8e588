import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CONFIG_DOCS, ConfigError, loadConfig, nodeConfigFs, redactConfig, type ConfigFs } from '../../../src/domain/config/app-config.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'config-test-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const PROD = {
  NODE_ENV: 'production',
  ADMIN_PASSWORD: 'a-long-production-password',
  API_KEYS: 'prod-key-0123456789abcdef',
  TOKEN_SECRET: 'x'.repeat(48),
};

async function configError(env: NodeJS.ProcessEnv, fs?: ConfigFs): Promise<ConfigError> {
  try {
    await loadConfig(env, fs);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig defaults', () => {
  it('applies the documented development defaults', async () => {
    const config = await loadConfig({ DATA_DIR: dir });
    expect(config).toMatchObject({
      production: false,
      port: 8080,
      host: '127.0.0.1',
      dataDir: dir,
      adminUsername: 'admin',
      adminPassword: 'password',
      apiKeys: ['test-api-key-123'],
      tokenTtlSeconds: 3600,
      rateLimitPerMinute: 600,
      seed: 'demo',
      storage: 'journal',
      productCatalogUrl: undefined,
      uploadMaxBytes: 10 * 1024 * 1024,
      uploadMaxFiles: 1,
      bodyLimitBytes: 1024 * 1024,
      cors: { origin: '*', methods: 'GET, POST, PUT, DELETE', headers: 'X-API-Key, Content-Type' },
      shutdownDeadlineMs: 10_000,
      shutdownDelayMs: 0,
      logRequests: true,
      tokenSecretSource: 'generated',
    });
    expect(config.devDefaults).toEqual(['ADMIN_PASSWORD', 'API_KEYS', 'TOKEN_SECRET']);
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('reads exactly the documented variables, and documents each once', async () => {
    const read = new Set<string>();
    const env = new Proxy({ DATA_DIR: dir } as NodeJS.ProcessEnv, {
      get(target, name) {
        if (typeof name === 'string') read.add(name);
        return target[name as string];
      },
    });
    await loadConfig(env);
    const documented = CONFIG_DOCS.map((d) => d.name);
    expect(new Set(documented).size).toBe(documented.length);
    expect([...read].sort()).toEqual([...documented].sort());
    for (const doc of CONFIG_DOCS) expect(doc.description.length).toBeGreaterThan(10);
  });

  it('parses overrides', async () => {
    const config = await loadConfig({
      DATA_DIR: dir,
      PORT: ' 0 ',
      HOST: '0.0.0.0',
      API_KEYS: ' k1 , k2,,',
      TOKEN_SECRET: 's'.repeat(32),
      SEED: 'none',
      STORAGE: 'memory',
      PRODUCT_CATALOG_URL: 'http://127.0.0.1:9000/catalog',
      RATE_LIMIT_PER_MINUTE: '0',
      LOG_REQUESTS: 'No',
      CORS_ORIGIN: 'https://app.example',
      ADMIN_PASSWORD: ' spaced pass ',
      PORT_UNUSED: 'x',
    });
    expect(config).toMatchObject({
      port: 0,
      host: '0.0.0.0',
      apiKeys: ['k1', 'k2'],
      seed: 'none',
      storage: 'memory',
      rateLimitPerMinute: 0,
      productCatalogUrl: 'http://127.0.0.1:9000/catalog',
      logRequests: false,
      tokenSecretSource: 'env',
      adminPassword: ' spaced pass ',
    });
    expect(config.cors.origin).toBe('https://app.example');
    expect(config.tokenSecret.equals(Buffer.from('s'.repeat(32)))).toBe(true);
    expect(config.devDefaults).toEqual([]);
  });

  it('treats empty values as unset', async () => {
    expect((await loadConfig({ DATA_DIR: dir, PORT: '', SEED: '  ' })).port).toBe(8080);
  });
});

describe('loadConfig validation', () => {
  it.each([
    ['PORT', 'abc'],
    ['PORT', '65536'],
    ['PORT', '-1'],
    ['PORT', '80.5'],
    ['PORT', '1e3'],
    ['TOKEN_TTL_SECONDS', '0'],
    ['RATE_LIMIT_PER_MINUTE', '10k'],
    ['UPLOAD_MAX_BYTES', '0'],
    ['UPLOAD_MAX_FILES', '101'],
    ['BODY_LIMIT_BYTES', '9'.repeat(20)],
    ['SHUTDOWN_DEADLINE_MS', 'soon'],
    ['LOG_REQUESTS', 'maybe'],
    ['SEED', 'lots'],
    ['STORAGE', 'postgres'],
    ['PRODUCT_CATALOG_URL', 'ftp://x'],
    ['PRODUCT_CATALOG_URL', 'not a url'],
    ['PRODUCT_CATALOG_URL', 'http://x/?a=1'],
    ['PUBLIC_BASE_URL', 'ftp://x'],
    ['PUBLIC_BASE_URL', 'example.com'],
    ['PUBLIC_BASE_URL', 'https://x/#frag'],
    ['HOST', 'a b'],
    ['ADMIN_USERNAME', 'ad:min'],
    ['ADMIN_PASSWORD', 'pass\nword'],
    ['API_KEYS', 'good, bad key'],
    ['TOKEN_SECRET', 'too-short'],
    ['CORS_ORIGIN', '*\r\nSet-Cookie: x=1'],
  ])('names %s in the error for %j', async (name, value) => {
    const error = await configError({ DATA_DIR: dir, [name]: value });
    expect(error.variables).toEqual([name]);
    expect(error.message).toContain(name);
  });

  it('reports every problem at once and never echoes secrets', async () => {
    const error = await configError({ DATA_DIR: dir, PORT: 'x', STORAGE: 'y', TOKEN_SECRET: 'hunter2' });
    expect(error.variables).toEqual(['TOKEN_SECRET', 'PORT', 'STORAGE']);
    expect(error.message).not.toContain('hunter2');
  });
});

describe('loadConfig with STORAGE=etcd', () => {
  const SECRET = 'y'.repeat(40);

  it('reads the endpoints (trailing slashes dropped), the prefix and a shared FILES_DIR', async () => {
    const config = await loadConfig({
      DATA_DIR: dir,
      STORAGE: 'etcd',
      ETCD_ENDPOINTS: 'http://127.0.0.1:2379/, http://127.0.0.1:22379',
      ETCD_PREFIX: '/svc-a',
      FILES_DIR: join(dir, 'shared-files'),
      TOKEN_SECRET: SECRET,
    });
    expect(config).toMatchObject({
      storage: 'etcd',
      etcdEndpoints: ['http://127.0.0.1:2379', 'http://127.0.0.1:22379'],
      etcdPrefix: '/svc-a',
      filesDir: join(dir, 'shared-files'),
    });
  });

  it('defaults FILES_DIR to DATA_DIR/files', async () => {
    expect((await loadConfig({ DATA_DIR: dir })).filesDir).toBe(join(dir, 'files'));
  });

  it('requires ETCD_ENDPOINTS and a TOKEN_SECRET shared by the instances, naming both', async () => {
    const error = await configError({ DATA_DIR: dir, STORAGE: 'etcd' });
    expect(error.variables).toEqual(expect.arrayContaining(['ETCD_ENDPOINTS', 'TOKEN_SECRET']));
    expect(error.message).toMatch(/ETCD_ENDPOINTS.*required with STORAGE=etcd/);
    expect(error.message).toMatch(/TOKEN_SECRET.*every instance/);
  });

  it.each([['ftp://x:1'], ['not a url'], [','], ['http://ok:1,nope']])('refuses ETCD_ENDPOINTS=%j', async (value) => {
    const error = await configError({ DATA_DIR: dir, STORAGE: 'etcd', ETCD_ENDPOINTS: value, TOKEN_SECRET: SECRET });
    expect(error.variables).toEqual(['ETCD_ENDPOINTS']);
  });

  it('takes several WORKERS only with etcd, naming the variable and the fix', async () => {
    const etcd = { DATA_DIR: dir, STORAGE: 'etcd', ETCD_ENDPOINTS: 'http://127.0.0.1:2379', TOKEN_SECRET: SECRET };
    expect((await loadConfig({ ...etcd, WORKERS: 'auto' })).workers).toBe('auto');
    expect((await loadConfig({ ...etcd, WORKERS: '3' })).workers).toBe(3);
    expect((await loadConfig({ DATA_DIR: dir })).workers).toBe(1);
    const journal = await configError({ DATA_DIR: dir, WORKERS: '2' });
    expect(journal.variables).toEqual(['WORKERS']);
    expect(journal.message).toMatch(/WORKERS.*STORAGE=etcd/);
    for (const bad of ['0', '-1', 'many', '1.5']) expect((await configError({ ...etcd, WORKERS: bad })).variables).toEqual(['WORKERS']);
  });

  it('refuses an ETCD_PREFIX that does not start with a slash', async () => {
    const error = await configError({
      DATA_DIR: dir,
      STORAGE: 'etcd',
      ETCD_ENDPOINTS: 'http://127.0.0.1:2379',
      ETCD_PREFIX: 'svc',
      TOKEN_SECRET: SECRET,
    });
    expect(error.variables).toEqual(['ETCD_PREFIX']);
  });
});

describe('loadConfig in production', () => {
  it('refuses every development default credential or secret, listing them, without writing a secret', async () => {
    const error = await configError({ NODE_ENV: 'production', DATA_DIR: dir });
    expect(error.variables).toEqual(['ADMIN_PASSWORD', 'API_KEYS', 'TOKEN_SECRET']);
    await expect(stat(join(dir, 'token-secret'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it.each([
    ['ADMIN_PASSWORD', { ADMIN_PASSWORD: 'password' }],
    ['API_KEYS', { API_KEYS: 'prod-key-0123456789abcdef,test-api-key-123' }],
    ['TOKEN_SECRET', { TOKEN_SECRET: undefined }],
  ])('refuses %s when only it is a development default', async (name, override) => {
    const error = await configError({ ...PROD, DATA_DIR: dir, ...override });
    expect(error.variables).toEqual([name]);
  });

  it('starts with real values', async () => {
    const config = await loadConfig({ ...PROD, DATA_DIR: dir });
    expect(config.production).toBe(true);
    expect(config.devDefaults).toEqual([]);
  });
});

describe('development token secret', () => {
  it('is generated once with mode 0600 and read back on the next start', async () => {
    const data = join(dir, 'nested', 'data');
    const first = await loadConfig({ DATA_DIR: data });
    const file = join(data, 'token-secret');
    expect(first.tokenSecret.length).toBe(32);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await readFile(file, 'utf8')).trim()).toBe(first.tokenSecret.toString('hex'));
    const second = await loadConfig({ DATA_DIR: data });
    expect(second.tokenSecretSource).toBe('file');
    expect(second.tokenSecret.equals(first.tokenSecret)).toBe(true);
  });

  it('replaces an empty file left by a crash, but refuses a corrupt one', async () => {
    await writeFile(join(dir, 'token-secret'), '');
    expect((await loadConfig({ DATA_DIR: dir })).tokenSecretSource).toBe('generated');
    await writeFile(join(dir, 'token-secret'), 'zz-not-hex');
    const error = await configError({ DATA_DIR: dir });
    expect(error.variables).toEqual(['TOKEN_SECRET']);
  });

  it("uses the other process's secret when it loses the creation race", async () => {
    const winner = 'ab'.repeat(32);
    let reads = 0;
    const racing: ConfigFs = {
      ...nodeConfigFs,
      readFile: async () => (reads++ === 0 ? undefined : `${winner}\n`),
      writeFile: async () => {
        throw Object.assign(new Error('exists'), { code: 'EEXIST' });
      },
    };
    const config = await loadConfig({ DATA_DIR: dir }, racing);
    expect(config.tokenSecret.toString('hex')).toBe(winner);
  });
});

describe('redactConfig', () => {
  it('masks every secret', async () => {
    const config = await loadConfig({ DATA_DIR: dir, TOKEN_SECRET: 'T'.repeat(40), API_KEYS: 'key-one,key-two' });
    const text = JSON.stringify(redactConfig(config));
    for (const secret of ['T'.repeat(40), 'key-one', 'key-two', '"password"']) expect(text).not.toContain(secret);
    expect(text).toContain('"adminUsername":"admin"');
  });
});

describe('external JWT issuer (JWT_ISSUER, JWT_AUDIENCE, JWKS_URL)', () => {
  const all = { JWT_ISSUER: 'https://id.example.com/', JWT_AUDIENCE: 'user-service', JWKS_URL: 'https://id.example.com/jwks.json' };

  it('is off without the variables, on with all three', async () => {
    expect((await loadConfig({ DATA_DIR: dir })).externalJwt).toBeUndefined();
    expect((await loadConfig({ DATA_DIR: dir, ...all })).externalJwt).toEqual({
      issuer: 'https://id.example.com/',
      audience: 'user-service',
      jwksUrl: 'https://id.example.com/jwks.json',
    });
    expect((await loadConfig({ DATA_DIR: dir, ...all, JWKS_URL: 'http://127.0.0.1:9000/jwks' })).externalJwt?.jwksUrl).toBe(
      'http://127.0.0.1:9000/jwks',
    );
  });

  it('refuses one or two of the three, naming the missing ones', async () => {
    const err = await configError({ DATA_DIR: dir, JWT_ISSUER: all.JWT_ISSUER });
    expect(err.variables).toEqual(['JWT_AUDIENCE', 'JWKS_URL']);
    expect(err.message).toMatch(/JWT_AUDIENCE: required with JWT_ISSUER: set JWT_ISSUER, JWT_AUDIENCE and JWKS_URL together, or none/);
    expect((await configError({ DATA_DIR: dir, JWT_ISSUER: all.JWT_ISSUER, JWKS_URL: all.JWKS_URL })).variables).toEqual(['JWT_AUDIENCE']);
  });

  it('refuses a JWKS_URL over plain http to another host, or not a URL', async () => {
    for (const url of ['http://id.example.com/jwks.json', 'http://10.0.0.5/jwks', 'ftp://127.0.0.1/jwks', 'jwks.json']) {
      const err = await configError({ DATA_DIR: dir, ...all, JWKS_URL: url });
      expect(err.variables).toEqual(['JWKS_URL']);
    }
    expect((await configError({ DATA_DIR: dir, ...all, JWKS_URL: 'http://id.example.com/jwks' })).message).toMatch(
      /must be an https URL \(plain http only to a loopback host/,
    );
  });
});
