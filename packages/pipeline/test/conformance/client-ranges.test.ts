/**
 * The typed client asks for byte ranges (RFC 9110 §14): the per-call `range` option of a contract
 * proxy and `InvocationBuilder.range`, and reads a 206's `Content-Range` as
 * `ClientResponse.contentRange`, in-process and over a loopback socket.
 */
import 'reflect-metadata';
import { describe, expect, it } from 'vitest';
import { Application, BytesBody, GET, Path, PathParam, Response } from '../../src/index.js';
import { withCallOptions } from '../../src/client/index.js';
import { CLIENT_TRANSPORTS, serveForClients } from '../helpers/client-transports.js';

const DATA = Buffer.from(Array.from({ length: 4096 }, (_, i) => i % 256));
const OLD = new Date('2026-01-02T03:04:05Z');

@Path('/blobs')
class Blobs {
  @GET('{id}') blob(@PathParam('id') _id: string): Response<Buffer> {
    return Response.ok(new BytesBody(DATA, { entityTag: true, lastModified: OLD })).build();
  }
}

describe.each(CLIENT_TRANSPORTS)('client range requests (%s)', (transport) => {
  const suite = serveForClients(transport, () => new Application({ resources: [Blobs], logger: () => undefined }));

  it('range: { start, end } on a response proxy: 206, contentRange and those bytes', async () => {
    const blobs = suite.client().responseProxy(Blobs);
    const r = await withCallOptions(blobs, { range: { start: 100, end: 199 } }).blob('a');
    expect(r.status).toBe(206);
    expect(r.contentRange).toEqual({ start: 100, end: 199, length: 4096 });
    expect((await r.readEntity(Buffer)).equals(DATA.subarray(100, 200))).toBe(true);
  });

  it('an open range and a suffix range on an entity proxy resolve with the bytes', async () => {
    const blobs = suite.client().proxy(Blobs);
    expect((await withCallOptions(blobs, { range: { start: 4000 } }).blob('a')).equals(DATA.subarray(4000))).toBe(true);
    expect((await withCallOptions(blobs, { range: { suffix: 10 } }).blob('a')).equals(DATA.subarray(4086))).toBe(true);
  });

  it('ifRange: the current tag or date gives the range, another tag the whole representation (200, no contentRange)', async () => {
    const client = suite.client();
    const blobs = client.responseProxy(Blobs);
    const whole = await blobs.blob('a');
    expect(whole.status).toBe(200);
    expect(whole.getHeader('accept-ranges')).toBe('bytes');
    const tag = whole.getHeader('etag')!;
    whole.close();
    const same = await withCallOptions(blobs, { range: { start: 0, end: 9, ifRange: tag } }).blob('a');
    expect(same.status).toBe(206);
    same.close();
    const byDate = await withCallOptions(blobs, { range: { start: 0, end: 9, ifRange: OLD } }).blob('a');
    expect(byDate.status).toBe(206);
    byDate.close();
    const changed = await withCallOptions(blobs, { range: { start: 0, end: 9, ifRange: '"older"' } }).blob('a');
    expect(changed.status).toBe(200);
    expect(changed.contentRange).toBeUndefined();
    expect((await changed.readEntity(Buffer)).length).toBe(4096);
  });

  it('the fluent API: request().range(...); a 416 exposes the length in contentRange', async () => {
    const client = suite.client();
    const target = client.target(transport === 'socket' ? `${client.baseUrl}/blobs/a` : 'http://localhost/blobs/a');
    const part = await target.request().range({ start: 1, end: 2 }).get();
    expect(part.status).toBe(206);
    expect([...(await part.readEntity(Buffer))]).toEqual([1, 2]);
    const none = await target.request().range({ start: 5000 }).get();
    expect(none.status).toBe(416);
    expect(none.contentRange).toEqual({ start: undefined, end: undefined, length: 4096 });
    expect(await none.readEntity()).toMatchObject({ code: 'PIPE_RANGE_NOT_SATISFIABLE' });
  });

  it('a bad range is refused before anything is sent, naming the field', async () => {
    const blobs = suite.client().proxy(Blobs);
    await expect(withCallOptions(blobs, { range: { start: -1 } }).blob('a')).rejects.toThrow(/range\.start/);
    await expect(withCallOptions(blobs, { range: { start: 5, end: 4 } }).blob('a')).rejects.toThrow(/range\.end/);
    await expect(withCallOptions(blobs, { range: { suffix: 0 } }).blob('a')).rejects.toThrow(/range\.suffix/);
    await expect(withCallOptions(blobs, { range: { start: 0, ifRange: new Date(NaN) } }).blob('a')).rejects.toThrow(/range\.ifRange/);
  });
});
