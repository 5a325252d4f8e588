/**
 * Credentials that passed the password check recently from a client (its address), shared by the
 * instances of one service (a shared store): the admin who logged in on one instance is
 * remembered on the others, so the failed-authentication limit never locks the real admin out
 * whichever instance answers, and no instance stores or sends a password.
 *
 * A record per client and credential pair, keyed by an HMAC of them under the instances' shared secret
 * (`TOKEN_SECRET`), kept {@link REMEMBERED_LOGIN_TTL_SECONDS} (an etcd lease; the expiry is also
 * checked on lookup). Lookups read the instance's local copy of the store: no etcd call per
 * request.
 */
import { createHash, createHmac } from 'node:crypto';
import type { RecordStore, StoredRecord } from '../../storage/record-store.js';

/** Record-store collection of remembered logins. */
export const REMEMBERED_LOGINS_COLLECTION = 'logins';
/** How long a login is remembered: one hour. */
export const REMEMBERED_LOGIN_TTL_SECONDS = 3600;

interface RememberedLogin extends StoredRecord {
  digest: string;
  expiresAt: string;
}

/**
 * @example
 * const remembered = new RememberedLogins(store, config.tokenSecret);
 * if (!remembered.has(client, user, password)) { ...verify...; remembered.remember(client, user, password); }
 */
export class RememberedLogins {
  constructor(
    private readonly store: RecordStore,
    private readonly secret: Buffer,
    private readonly onError: (error: unknown) => void = () => undefined,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether this pair passed from `client` on some instance within the TTL. */
  has(client: string, username: string, password: string): boolean {
    const digest = this.digest(client, username, password);
    const record = this.store.get<RememberedLogin>(REMEMBERED_LOGINS_COLLECTION, slotOf(digest));
    return record !== undefined && record.digest === digest && Date.parse(record.expiresAt) > this.now();
  }

  /** Remembers a pair that just passed from `client` (best effort: a failed write only costs a limited check later). */
  remember(client: string, username: string, password: string): void {
    const digest = this.digest(client, username, password);
    const id = slotOf(digest);
    const current = this.store.get<RememberedLogin>(REMEMBERED_LOGINS_COLLECTION, id);
    // Refreshed once half the TTL has passed, not at every login.
    if (current?.digest === digest && Date.parse(current.expiresAt) - this.now() > (REMEMBERED_LOGIN_TTL_SECONDS * 1000) / 2) return;
    const record: RememberedLogin = {
      id,
      digest,
      expiresAt: new Date(this.now() + REMEMBERED_LOGIN_TTL_SECONDS * 1000).toISOString(),
    };
    this.store
      .commit([{ op: 'put', collection: REMEMBERED_LOGINS_COLLECTION, record, lease: { ttlSeconds: REMEMBERED_LOGIN_TTL_SECONDS } }])
      .catch(this.onError);
  }

  private digest(client: string, username: string, password: string): string {
    return createHmac('sha256', this.secret)
      .update(JSON.stringify(['remembered-login', client, username, password]))
      .digest('base64url');
  }
}

/** The record id of a digest: 48 bits of it, plus one (ids are positive). */
function slotOf(digest: string): number {
  return createHash('sha256').update(digest).digest().readUIntBE(0, 6) + 1;
}
