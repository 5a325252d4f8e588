/** Parsing of etcd's streamed watch answers, chunk by chunk, without a server. */
import { describe, expect, it } from 'vitest';
import { prefixRange } from '../../../src/storage/etcd/codec.js';
import { EtcdError } from '../../../src/storage/etcd/errors.js';
import { lines, watchLine } from '../../../src/storage/etcd/watch-stream.js';

const E = 'http://127.0.0.1:1';

async function* chunks(...parts: string[]): AsyncGenerator<Buffer> {
  for (const part of parts) yield Buffer.from(part);
}

async function collect(source: AsyncIterable<string>): Promise<string[]> {
  const out: string[] = [];
  for await (const line of source) out.push(line);
  return out;
}

describe('etcd watch stream', () => {
  it('splits JSON lines across chunk boundaries, multi-byte characters included', async () => {
    const euro = Buffer.from('{"v":"€"}\n');
    async function* bytes(): AsyncGenerator<Buffer> {
      yield Buffer.from('{"a":1}\n{"b"');
      yield Buffer.from(':2}\n\n');
      yield euro.subarray(0, 7);
      yield euro.subarray(7);
    }
    expect(await collect(lines(bytes(), 1024, E))).toEqual(['{"a":1}', '{"b":2}', '{"v":"€"}']);
  });

  it('fails on a line longer than the bound instead of buffering it', async () => {
    const err = await collect(lines(chunks('x'.repeat(600), 'x'.repeat(600)), 1000, E)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EtcdError);
    expect((err as EtcdError).code).toBe('RESPONSE_TOO_LARGE');
  });

  it('decodes events, and reports a compacted start revision and stream errors', () => {
    const line = JSON.stringify({
      result: {
        header: { revision: '6' },
        events: [
          { kv: { key: 'YQ==', value: 'eA==', mod_revision: '5', version: '1' } },
          { type: 'DELETE', kv: { key: 'YQ==', mod_revision: '6' } },
        ],
      },
    });
    expect(watchLine(line, E).map((e) => [e.type, e.key, e.value, e.modRevision])).toEqual([
      ['put', 'a', 'x', 5],
      ['delete', 'a', '', 6],
    ]);
    expect(watchLine('{"result":{"header":{},"created":true}}', E)).toEqual([]);
    const compacted = (() => {
      try {
        watchLine('{"result":{"canceled":true,"compact_revision":"9"}}', E);
      } catch (err) {
        return err as EtcdError;
      }
    })();
    expect([compacted?.code, compacted?.compactRevision]).toEqual(['COMPACTED', 9]);
    expect(() => watchLine('{"error":{"grpc_code":14,"http_code":503,"message":"no leader"}}', E)).toThrow(/no leader \(UNAVAILABLE/);
    expect(() => watchLine('{"result":{"events":[{"kv":{"mod_revision":"99999999999999999999"}}]}}', E)).toThrow(/BAD_RESPONSE/);
  });

  it('computes prefix range ends like etcd clientv3', () => {
    const decode = (pair: string[]): string[] => pair.map((b) => Buffer.from(b, 'base64').toString('latin1'));
    expect(decode(prefixRange('a/'))).toEqual(['a/', 'a0']);
    expect(decode(prefixRange(new Uint8Array([0x61, 0xff])))).toEqual(['a\xff', 'b']);
    expect(decode(prefixRange(''))).toEqual(['\0', '\0']);
  });
});
