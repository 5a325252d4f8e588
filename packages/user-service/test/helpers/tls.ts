import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The pipeline's test certificate (self-signed for localhost and 127.0.0.1, its own CA), its key,
 * and a key that does not match it: public test fixtures, see that folder's README.
 */
const dir = resolve(dirname(fileURLToPath(import.meta.url)), '../../../pipeline/test/fixtures/tls');
export const TEST_CERT_FILE = join(dir, 'cert.pem');
export const TEST_KEY_FILE = join(dir, 'key.pem');
export const OTHER_KEY_FILE = join(dir, 'other-key.pem');
