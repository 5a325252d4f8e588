/**
 * Global setup of the `user-service-etcd` project: one three-member etcd cluster on loopback
 * ports for the whole run; every server pair of the black-box suite gets its own key prefix in it.
 */
import type { TestProject } from 'vitest/node';
import { startEtcd } from './etcd.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Comma-separated client URLs of the run's etcd cluster. */
    etcdEndpoints: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const cluster = await startEtcd(3);
  project.provide('etcdEndpoints', cluster.endpoints.join(','));
  return () => cluster.stop();
}
