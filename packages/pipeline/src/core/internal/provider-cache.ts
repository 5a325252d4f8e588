import { mediaTypeString, type MediaType } from '../http/media-type.js';
import type { TypeToken } from '../context/contracts.js';

/**
 * Media type keys kept per entity type. Real traffic has a handful per type (`application/json`
 * with and without a charset, a few vendor types); the keys come from clients (`Content-Type`,
 * or `Accept` through a wildcard `@Produces`), so without a cap a client sending a new parameter
 * on every request would grow the cache for ever. Beyond the cap the choice is made by the scan,
 * exactly as it would be without a cache.
 */
export const MAX_CACHED_MEDIA_TYPES = 32;
/** Longer keys are never cached (a real media type is well under 100 characters). */
export const MAX_CACHED_KEY_LENGTH = 256;
/**
 * Entity types kept. Types come from code (declared parameters, the classes of returned
 * entities), so an application has a bounded set; the cap only guards against a type per
 * request (e.g. classes made at run time) growing memory.
 */
export const MAX_CACHED_TYPES = 256;

/**
 * The cache key of a media type: its full string with every parameter (readers and writers may
 * decide on a charset), plus the weight when it is not 1, so two keys are equal only when
 * `isReadable`/`isWriteable` see equal arguments. `''` (never a media type) stands for none.
 */
export function mediaTypeKey(mt: MediaType | undefined): string {
  if (mt === undefined) return '';
  // Parsed media types are shared, frozen objects (media-type.ts caches them per header value):
  // remembering each one's key saves building and hashing a fresh string per request.
  let key = keys.get(mt);
  if (key === undefined) {
    const s = mediaTypeString(mt);
    key = mt.q === 1 ? s : `${s}; q=${mt.q}`;
    keys.set(mt, key);
  }
  return key;
}

const keys = new WeakMap<MediaType, string>();

/**
 * A bounded memo of provider choices by (entity type, media type key). It relies on
 * `isReadable`/`isWriteable` being functions of their two arguments (the contract the
 * interfaces state), so a remembered choice is the one a scan would make again.
 * Full: new keys are not stored (no eviction), so entries already there keep their hits and a
 * flood of fresh keys costs a scan each, never memory.
 */
export class ProviderCache<P> {
  private readonly byType = new Map<TypeToken, Map<string, P>>();

  /** The remembered provider, or undefined (never asked, or not cached). */
  get(type: TypeToken, key: string): P | undefined {
    return this.byType.get(type)?.get(key);
  }

  /** Remembers `provider` unless the key is too long or the type already has its quota. */
  set(type: TypeToken, key: string, provider: P): void {
    if (key.length > MAX_CACHED_KEY_LENGTH) return;
    let byKey = this.byType.get(type);
    if (byKey === undefined) {
      if (this.byType.size >= MAX_CACHED_TYPES) return;
      this.byType.set(type, (byKey = new Map()));
    }
    if (byKey.size < MAX_CACHED_MEDIA_TYPES) byKey.set(key, provider);
  }
}
