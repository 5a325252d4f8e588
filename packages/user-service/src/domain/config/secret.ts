/**
 * The development token secret: 32 random bytes generated on first start and kept in
 * `${DATA_DIR}/token-secret` (mode 0600) so tokens stay valid across restarts. Production must
 * set TOKEN_SECRET instead (enforced by `loadConfig`).
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { TOKEN_SECRET_FILE } from './docs.js';

/** File operations `loadConfig` needs; injectable for tests of failure paths. */
export interface ConfigFs {
  /** File contents as UTF-8, or undefined when the file does not exist. */
  readFile(path: string): Promise<string | undefined>;
  /** Creates directories like `mkdir -p`, new ones with mode 0700. */
  mkdir(path: string): Promise<void>;
  /**
   * Writes `data` with mode 0600 and fsyncs it. `exclusive` fails with code EEXIST when the file
   * exists (two processes starting at once must not each write a different secret).
   */
  writeFile(path: string, data: string, exclusive: boolean): Promise<void>;
}

/** {@link ConfigFs} on `node:fs/promises`. */
export const nodeConfigFs: ConfigFs = {
  async readFile(path) {
    try {
      return await readFile(path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  },
  async mkdir(path) {
    await mkdir(path, { recursive: true, mode: 0o700 });
  },
  async writeFile(path, data, exclusive) {
    const handle = await open(path, exclusive ? 'wx' : 'w', 0o600);
    try {
      await handle.chmod(0o600); // `mode` applies only when the file is created
      await handle.writeFile(data, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
  },
};

/** Where the secret came from; `file` and `generated` are development-only sources. */
export type TokenSecretSource = 'env' | 'file' | 'generated';

/** Result of {@link loadOrCreateTokenSecret}: a secret, or a problem for the ConfigError. */
export type TokenSecretResult =
  { readonly secret: Buffer; readonly source: 'file' | 'generated'; readonly path: string } | { readonly problem: string };

const HEX_SECRET = /^(?:[0-9a-f]{2}){32,}$/i;

function decode(path: string, text: string): TokenSecretResult {
  const hex = text.trim();
  return HEX_SECRET.test(hex)
    ? { secret: Buffer.from(hex, 'hex'), source: 'file', path }
    : { problem: `${path} is not a hex secret of at least 32 bytes; delete it to generate a new one (issued tokens become invalid)` };
}

/**
 * Reads the secret file under `dataDir`, creating it when absent. An empty file (a crash between
 * create and write) is replaced: no token can have been signed with it.
 */
export async function loadOrCreateTokenSecret(dataDir: string, fs: ConfigFs): Promise<TokenSecretResult> {
  const path = join(dataDir, TOKEN_SECRET_FILE);
  const existing = await fs.readFile(path);
  if (existing !== undefined && existing.trim() !== '') return decode(path, existing);

  await fs.mkdir(dataDir);
  const secret = randomBytes(32);
  try {
    await fs.writeFile(path, `${secret.toString('hex')}\n`, existing === undefined);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    // Another process won the race: use its secret so both agree.
    const winner = await fs.readFile(path);
    return winner === undefined || winner.trim() === ''
      ? { problem: `${path} appeared while starting but is empty; start again` }
      : decode(path, winner);
  }
  return { secret, source: 'generated', path };
}
