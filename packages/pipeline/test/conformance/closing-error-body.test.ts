/**
 * The 503 a closing application answers is one of the application's own errors: it uses the
 * configured error body (the factory gets the request, so `path` works), runs the global response
 * filters, and can be mapped; it keeps `Retry-After: 1` and `Connection: close`. Over a socket and
 * in-process.
 */
import type { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  Application,
  GET,
  Path,
  type ContainerRequestContext,
  type ContainerResponseContext,
  type ContainerResponseFilter,
  type ErrorBodyFactory,
} from '../../src/index.js';
import { deferred } from '../helpers/deferred.js';
import { rawConnect } from '../helpers/raw-socket.js';

let entered = deferred();
let release = deferred();

@Path('/work')
class Work {
  @GET() async slow(): Promise<string> {
    entered.resolve();
    await release.promise;
    return 'done';
  }
}

class Stamp implements ContainerResponseFilter {
  filterResponse(_req: ContainerRequestContext, res: ContainerResponseContext): void {
    res.headers['x-stamp'] = 'global';
  }
}

const errorBody: ErrorBodyFactory = (error, req) => ({ kind: 'service-error', status: error.status, path: req.path, code: error.code });
const newApp = (): Application => new Application({ resources: [Work], providers: [new Stamp()], errorBody, logger: () => undefined });

describe('the 503 of close() uses the application error body', () => {
  it('in-process', async () => {
    entered = deferred();
    release = deferred();
    const app = newApp();
    const inflight = app.inject('/work');
    await entered.promise;
    const closing = app.close(5000);
    const r = await app.inject('/other/path?x=1');
    expect(r.status).toBe(503);
    expect(r.json()).toEqual({ kind: 'service-error', status: 503, path: '/other/path', code: 'PIPE_SHUTTING_DOWN' });
    expect(r.headers).toMatchObject({ 'retry-after': '1', connection: 'close', 'x-stamp': 'global' });
    release.resolve();
    expect((await inflight).status).toBe(200);
    await closing;
  });

  it('over a socket', async () => {
    entered = deferred();
    release = deferred();
    const app = newApp();
    const serverSockets: Socket[] = [];
    const { port } = await app.listen(0);
    app.server!.on('connection', (s: Socket) => serverSockets.push(s));
    const busy = await rawConnect(port);
    const late = await rawConnect(port);
    busy.socket.write('GET /work HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    await entered.promise;
    // The late request's first bytes are on the server before close() starts, so Node does not
    // reap the connection as idle and the completed request reaches the handler.
    const partial = 'GET /late HTTP/1.1\r\nHost: 127.0.0.1\r\n';
    late.socket.write(partial);
    const onServer = serverSockets.find((s) => s.remotePort === late.socket.localPort)!;
    for (let i = 0; i < 300 && onServer.bytesRead < partial.length; i++) await new Promise((r) => setTimeout(r, 10));
    expect(onServer.bytesRead).toBe(partial.length);

    const closing = app.close(5000);
    late.socket.write('\r\n');
    const [rejected] = await late.responses(1);
    expect(rejected!.status).toBe(503);
    expect(rejected!.headers).toMatchObject({ 'retry-after': '1', connection: 'close', 'x-stamp': 'global' });
    expect(JSON.parse(rejected!.body)).toEqual({ kind: 'service-error', status: 503, path: '/late', code: 'PIPE_SHUTTING_DOWN' });
    release.resolve();
    const [done] = await busy.responses(1);
    expect(done!.status).toBe(200);
    await closing;
  });
});
