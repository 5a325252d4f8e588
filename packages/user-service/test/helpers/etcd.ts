/**
 * Real etcd members for tests: a single member or a 3-member cluster on free 127.0.0.1 ports with
 * temporary data dirs (flags as in https://etcd.io/docs/v3.4/op-guide/clustering/#static).
 * Files using it wrap their suites in `describe.skipIf(skipWithoutEtcd)`: without an `etcd` binary
 * they are skipped locally, but under `CI` a missing binary fails (startEtcd throws).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { until } from './poll.js';

function findEtcd(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, 'etcd');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

/** Path of the `etcd` binary on PATH, if any. */
export const etcdBinary = findEtcd();

/** True when etcd tests should be skipped: no binary and not under CI. */
export const skipWithoutEtcd = etcdBinary === undefined && !process.env.CI;

/** One running (or killed) member. */
export interface EtcdMember {
  readonly name: string;
  /** Client URL, e.g. `http://127.0.0.1:40123`. */
  readonly endpoint: string;
  readonly process: ChildProcess;
}

/** A started cluster; `stop()` kills every member and removes the data dirs. */
export interface EtcdCluster {
  readonly endpoints: string[];
  readonly members: EtcdMember[];
  /** Sends `signal` to a member and waits (bounded) until it has exited. */
  kill(member: EtcdMember, signal?: NodeJS.Signals): Promise<void>;
  stop(): Promise<void>;
}

const running = new Set<ChildProcess>();
// A crashed test run must not leave etcd processes behind.
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

async function freePorts(n: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<ReturnType<typeof createServer>>((resolve, reject) => {
          const server = createServer();
          server.once('error', reject);
          server.listen(0, '127.0.0.1', () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((s) => (s.address() as AddressInfo).port);
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  return ports;
}

async function healthy(endpoint: string): Promise<boolean> {
  try {
    const response = await fetch(`${endpoint}/health`, { signal: AbortSignal.timeout(1000) });
    const body = (await response.json()) as { health?: unknown };
    return response.ok && body.health === 'true';
  } catch {
    return false;
  }
}

async function exited(child: ChildProcess, timeoutMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`etcd pid ${child.pid} did not exit within ${timeoutMs} ms`)), timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/**
 * Starts `size` members (1 or 3) and waits until every one reports healthy (a leader elected).
 * @example
 * const cluster = await startEtcd(3);
 * afterAll(() => cluster.stop());
 */
export async function startEtcd(size: 1 | 3 = 1, timeoutMs = 20_000): Promise<EtcdCluster> {
  if (etcdBinary === undefined) {
    throw new Error('etcd binary not found on PATH: install it (apt-get install -y etcd-server) or run without CI to skip');
  }
  const dir = await mkdtemp(join(tmpdir(), 'etcd-test-'));
  const ports = await freePorts(2 * size);
  const names = Array.from({ length: size }, (_, i) => `m${i}`);
  const peerUrl = (i: number): string => `http://127.0.0.1:${ports[2 * i + 1]}`;
  const initialCluster = names.map((name, i) => `${name}=${peerUrl(i)}`).join(',');
  const token = `test-${process.pid}-${ports[0]}`;
  const logs = new Map<string, string>();
  const members = names.map((name, i): EtcdMember => {
    const endpoint = `http://127.0.0.1:${ports[2 * i]}`;
    const child = spawn(
      etcdBinary,
      [
        `--name=${name}`,
        `--data-dir=${join(dir, name)}`,
        `--listen-client-urls=${endpoint}`,
        `--advertise-client-urls=${endpoint}`,
        `--listen-peer-urls=${peerUrl(i)}`,
        `--initial-advertise-peer-urls=${peerUrl(i)}`,
        `--initial-cluster=${initialCluster}`,
        `--initial-cluster-token=${token}`,
        '--initial-cluster-state=new',
        '--logger=zap',
        '--log-outputs=stderr',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    running.add(child);
    child.once('exit', () => running.delete(child));
    // Keep the last 4 KB of each member's log for failure messages.
    child.stderr?.on('data', (chunk: Buffer) => logs.set(name, ((logs.get(name) ?? '') + chunk.toString()).slice(-4096)));
    return { name, endpoint, process: child };
  });

  const kill = async (member: EtcdMember, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> => {
    member.process.kill(signal);
    await exited(member.process, 10_000);
  };
  const stop = async (): Promise<void> => {
    await Promise.all(members.map((m) => kill(m, 'SIGKILL')));
    await rm(dir, { recursive: true, force: true });
  };

  try {
    await until(
      async () => {
        const dead = members.find((m) => m.process.exitCode !== null || m.process.signalCode !== null);
        if (dead !== undefined) throw new Error(`etcd ${dead.name} exited during start-up:\n${logs.get(dead.name) ?? ''}`);
        return (await Promise.all(members.map((m) => healthy(m.endpoint)))).every(Boolean);
      },
      `${size} healthy etcd member(s)`,
      timeoutMs,
      100,
    );
  } catch (err) {
    await stop();
    throw err;
  }
  return { endpoints: members.map((m) => m.endpoint), members, kill, stop };
}
