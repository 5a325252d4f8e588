/**
 * Every relative link of every tracked Markdown file resolves: the file or folder it names exists,
 * and its `#anchor` (on the same page or another `.md`) is a heading of that page, slugged as
 * GitHub slugs headings (lower case, punctuation dropped, spaces to hyphens, `-1`, `-2` for
 * repeats). Links in code blocks and inline code are not links; `http:`/`https:`/`mailto:` are
 * not checked (no network in tests).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');

/** The tracked Markdown files, relative to the repository root. */
const files = execFileSync('git', ['ls-files', '*.md'], { cwd: ROOT, encoding: 'utf8' })
  .split('\n')
  .filter((f) => f !== '');

/** The lines of `text` outside fenced code blocks, with inline code blanked, and their numbers. */
function proseLines(text: string): Array<readonly [number, string]> {
  const out: Array<readonly [number, string]> = [];
  let fence = false;
  text.split('\n').forEach((line, i) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fence = !fence;
      return;
    }
    if (!fence) out.push([i + 1, line.replace(/`+[^`]*`+/g, '``')]);
  });
  return out;
}

/** GitHub's anchor for a heading text. */
function slug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

const anchorCache = new Map<string, Set<string>>();
/** The anchors of the Markdown file `file` (absolute path). */
function anchorsOf(file: string): Set<string> {
  const cached = anchorCache.get(file);
  if (cached !== undefined) return cached;
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fence = false;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fence = !fence;
    const m = fence ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (m === null) continue;
    const base = slug(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  anchorCache.set(file, anchors);
  return anchors;
}

/** Every broken relative link of `file` as `file:line: target (why)`. */
function brokenLinks(file: string): string[] {
  const abs = join(ROOT, file);
  const broken: string[] = [];
  for (const [n, line] of proseLines(readFileSync(abs, 'utf8'))) {
    for (const m of line.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = m[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
      const hash = target.indexOf('#');
      const path = hash === -1 ? target : target.slice(0, hash);
      const anchor = hash === -1 ? undefined : decodeURIComponent(target.slice(hash + 1));
      const dest = path === '' ? abs : resolve(dirname(abs), decodeURIComponent(path));
      if (!existsSync(dest)) {
        broken.push(`${file}:${n}: ${target} (no such file)`);
        continue;
      }
      if (anchor === undefined) continue;
      if (statSync(dest).isDirectory() || !dest.endsWith('.md')) {
        broken.push(`${file}:${n}: ${target} (an anchor on a file that is not Markdown)`);
        continue;
      }
      if (!anchorsOf(dest).has(anchor)) broken.push(`${file}:${n}: ${target} (no heading with that anchor)`);
    }
  }
  return broken;
}

describe('Markdown links', () => {
  it('slugs headings as GitHub does', () => {
    expect(slug('Typed clients (`@jaxrs-node/pipeline/client`)')).toBe('typed-clients-jaxrs-nodepipelineclient');
    expect(slug('Problem details (RFC 9457)')).toBe('problem-details-rfc-9457');
    expect(slug('Decisions where JAX-RS leaves a choice, or where we differ')).toBe(
      'decisions-where-jax-rs-leaves-a-choice-or-where-we-differ',
    );
  });

  it('finds the READMEs and the docs pages', () => {
    expect(files).toContain('README.md');
    expect(files).toContain('packages/pipeline/README.md');
    expect(files.some((f) => f.startsWith('packages/pipeline/docs/'))).toBe(true);
  });

  it.each(files)('every relative link and anchor of %s resolves', (file) => {
    expect(brokenLinks(file)).toEqual([]);
  });
});
