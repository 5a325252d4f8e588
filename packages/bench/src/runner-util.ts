/** What the benchmark runners (`run.ts`, `instructions.ts`) share: the package directory, env parsing, readiness. */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ServerSpec } from './servers.js';

/** The bench package directory: servers start there, so their relative `args` resolve the same from any cwd. */
export const PKG_DIR = join(dirname(fileURLToPath(import.meta.url)), '..');

/** An integer environment variable in [min, max], `fallback` when unset or empty. */
export function intEnv(name: string, fallback: number, min: number, max: number): number {
  return envNumber(name, fallback, min, max, true);
}

/** A number environment variable in [min, max], `fallback` when unset or empty. */
export function numberEnv(name: string, fallback: number, min: number, max: number): number {
  return envNumber(name, fallback, min, max, false);
}

function envNumber(name: string, fallback: number, min: number, max: number, integer: boolean): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  const ok = integer ? Number.isInteger(n) : Number.isFinite(n);
  if (!ok || n < min || n > max) throw new Error(`${name} must be ${integer ? 'an integer' : 'a number'} in [${min}, ${max}], got ${raw}`);
  return n;
}

/** Does `url` answer 2xx within a second (readiness polling for servers that print nothing)? */
export async function answers(url: string, headers: Record<string, string> | undefined): Promise<boolean> {
  try {
    const res = await fetch(url, { headers, signal: AbortSignal.timeout(1000) });
    await res.arrayBuffer();
    return res.ok;
  } catch {
    return false;
  }
}

/** The executable for a server: `node` is this process's own (a PATH lookup could find another version, or a shell shim). */
export function commandOf(spec: ServerSpec): string {
  return spec.cmd === 'node' ? process.execPath : spec.cmd;
}
