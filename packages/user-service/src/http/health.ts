import { HealthFeature, type HealthCheck } from '@jaxrs-node/pipeline';
import type { RecordStore } from '../storage/index.js';

/**
 * The probes beside `GET /api/health` (which keeps its own specified answer): `GET
 * /api/health/live` (the process answers: no check) and `GET /api/health/ready` (the store takes
 * writes, etcd answers on `STORAGE=etcd`, the users' indexes are built, not draining). Both in MicroProfile Health's shape, 200
 * UP or 503 DOWN; no credentials, never rate limited (the service's authentication and rate-limit
 * filters are name-bound to the routes that use them); listed in the OpenAPI document (tag
 * `health`), since every answer of the service is checked against it.
 */
export function healthFeature(store: RecordStore, etcdCheck: HealthCheck | undefined, indexesReady: () => boolean): HealthFeature {
  const storeWritable: HealthCheck = {
    name: 'store',
    kind: 'readiness',
    // writeStatus() reads a field: it cannot be slow. A full disk says why (its errno) and since when.
    check: () => {
      const write = store.writeStatus();
      if (write.writable) return { status: 'UP' };
      return { status: 'DOWN', data: { code: write.code, reason: write.reason, since: write.since } };
    },
  };
  // The users' indexes are built in the background at start-up (UsersIndex.build): until they are,
  // sorted pages, email filters and searches scan, which at 10^6 users takes tens of milliseconds.
  const indexes: HealthCheck = {
    name: 'indexes',
    kind: 'readiness',
    check: () => (indexesReady() ? { status: 'UP' } : { status: 'DOWN', data: { reason: 'the users indexes are being built' } }),
  };
  return new HealthFeature({
    path: '/api/health',
    probes: ['live', 'ready'],
    checks: etcdCheck === undefined ? [storeWritable, indexes] : [storeWritable, etcdCheck, indexes],
    openApi: true,
  });
}
