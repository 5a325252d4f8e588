/**
 * The root README's start command ends cleanly on Ctrl+C: the terminal sends SIGINT to the whole
 * foreground process group, the shell that runs the `start` script included. The script execs the
 * server, so no shell is left to die of the signal and make pnpm report "Command failed".
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ensureBuilt, removeDir } from '../helpers/server.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');

describe('the root start script', () => {
  it('runs the server as its last command, and SIGINT to the process group exits 0 after the "stopped" line', async () => {
    ensureBuilt();
    const script = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
    // The build step is the gate's own first step; run what follows it, through sh as pnpm does.
    const run = script.slice(script.lastIndexOf('&&') + 2).trim();
    const dataDir = mkdtempSync(join(tmpdir(), 'user-service-start-'));
    try {
      const child = spawn('sh', ['-c', run], {
        cwd: ROOT,
        detached: true, // its own process group, as a terminal's foreground job
        env: { PATH: process.env.PATH ?? '', PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const lines: string[] = [];
      const exited = new Promise<[number | null, NodeJS.Signals | null]>((r) => child.once('exit', (code, signal) => r([code, signal])));
      await new Promise<void>((ready, fail) => {
        const timer = setTimeout(() => fail(new Error(`no "listening on" line: ${lines.join('\n')}`)), 15_000);
        let buf = '';
        child.stdout.on('data', (d: Buffer) => {
          buf += d.toString();
          let nl: number;
          while ((nl = buf.indexOf('\n')) >= 0) {
            const line = buf.slice(0, nl);
            buf = buf.slice(nl + 1);
            lines.push(line);
            if (line.startsWith('listening on')) {
              clearTimeout(timer);
              ready();
            }
          }
        });
      });
      process.kill(-child.pid!, 'SIGINT');
      const [code, signal] = await exited;
      expect({ code, signal }).toEqual({ code: 0, signal: null });
      expect(lines.at(-1)).toBe('{"level":"info","message":"stopped","exitCode":0}');
    } finally {
      removeDir(dataDir);
    }
  });
});
