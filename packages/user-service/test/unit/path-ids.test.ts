/**
 * Id path/query parameters through the real pipeline: a bad id is a 400 whose message and single
 * violation name the parameter it came from (`orderId`, `customerId`, ...), not always `id`, and
 * echo the rejected text (`value`), as the pipeline's items do since issue 22.
 * In-process (`app.inject`), against src/, so no build is needed.
 */
import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Application, GET, Path, PathParam, Produces, QueryParam } from '@jaxrs-node/pipeline';
import { loadConfig } from '../../src/domain/config/app-config.js';
import { RECORD_ID_RULE } from '../../src/domain/common/record-id.js';
import { serviceErrorBody } from '../../src/http/error-body.js';
import { Id } from '../../src/http/resources/ids.js';
import { createService, type Service } from '../../src/server.js';
import { MemoryRecordStore } from '../../src/storage/index.js';

type ErrorBody = { status: number; error: string; message: string; errors: { field: string; message: string; value?: string }[] };

/** A resource whose id parameters have other names than `id`. */
@Path('/customers')
@Produces('application/json')
class CustomersResource {
  @GET('{customerId}')
  get(@PathParam('customerId', { type: Id }) customerId: number, @QueryParam('productId', { type: Id }) productId?: number): unknown {
    return { customerId, productId: productId ?? null };
  }
}

describe('Id.fromString', () => {
  it('converts canonical ids', () => {
    expect(Id.fromString('1')).toBe(1);
    expect(Id.fromString('9007199254740991')).toBe(Number.MAX_SAFE_INTEGER);
  });

  // The same refusals as before the parser was shared with files and jobs, leading zeros included.
  it.each(['abc', '0', '-1', '1.5', '1e3', '0x10', ' 1', '', '01', '007', '9007199254740992', '99999999999999999999'])(
    'refuses %j with a plain RangeError, which the pipeline turns into a 400 naming the parameter',
    (raw) => {
      expect(() => Id.fromString(raw)).toThrow(new RangeError(RECORD_ID_RULE));
    },
  );
});

describe('a bad id parameter of a resource', () => {
  const app = new Application({ resources: [CustomersResource], errorBody: serviceErrorBody });

  it('is a 400 naming customerId for the path parameter customerId', async () => {
    const res = await app.inject('/customers/abc');
    expect(res.status).toBe(400);
    const body = res.json<ErrorBody>();
    expect(body).toMatchObject({ status: 400, error: 'Bad Request' });
    expect(body.errors).toEqual([{ field: 'customerId', message: RECORD_ID_RULE, value: 'abc' }]);
    expect(body.message).toContain("'customerId'");
  });

  it('is a 400 naming productId for the query parameter productId', async () => {
    const res = await app.inject('/customers/3?productId=0');
    expect(res.status).toBe(400);
    expect(res.json<ErrorBody>().errors).toEqual([{ field: 'productId', message: RECORD_ID_RULE, value: '0' }]);
  });

  it('converts good ids', async () => {
    expect((await app.inject('/customers/3?productId=12')).json()).toEqual({ customerId: 3, productId: 12 });
  });
});

describe('bad ids on the user and order routes of the service', () => {
  let dataDir: string;
  let service: Service;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'user-service-ids-'));
    const config = await loadConfig({ DATA_DIR: dataDir, SEED: 'none', STORAGE: 'memory', PORT: '0', LOG_REQUESTS: 'false' });
    service = await createService(config, { store: new MemoryRecordStore(), log: null });
    const created = await service.app.inject({
      method: 'POST',
      url: '/api/users',
      body: { email: 'ids@example.com', firstName: 'Id', lastName: 'Test' },
    });
    expect(created.status).toBe(201);
  });
  afterAll(async () => {
    await service?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const errorsOf = async (method: string, url: string, body?: object): Promise<ErrorBody['errors']> => {
    const res = await service.app.inject({ method, url, body });
    expect(res.status, `${method} ${url}`).toBe(400);
    return res.json<ErrorBody>().errors;
  };

  it.each(['abc', '0', '01', '1.5'])('names orderId for GET /api/users/1/orders/%s', async (orderId) => {
    expect(await errorsOf('GET', `/api/users/1/orders/${orderId}`)).toEqual([
      { field: 'orderId', message: RECORD_ID_RULE, value: orderId },
    ]);
  });

  it('names orderId for PUT /api/users/1/orders/x/status', async () => {
    expect(await errorsOf('PUT', '/api/users/1/orders/x/status', { status: 'PROCESSING' })).toEqual([
      { field: 'orderId', message: RECORD_ID_RULE, value: 'x' },
    ]);
  });

  it('still names id for the user id of the same routes and of /api/users/{id}', async () => {
    expect(await errorsOf('GET', '/api/users/abc/orders/1')).toEqual([{ field: 'id', message: RECORD_ID_RULE, value: 'abc' }]);
    expect(await errorsOf('GET', '/api/users/-1')).toEqual([{ field: 'id', message: RECORD_ID_RULE, value: '-1' }]);
    expect(await errorsOf('GET', '/api/users/01')).toEqual([{ field: 'id', message: RECORD_ID_RULE, value: '01' }]);
  });

  it('in-process too: a bad page and size in one 400, as problem details when Accept prefers them', async () => {
    const plain = await service.app.inject('/api/users?page=-1&size=abc');
    expect(plain.status).toBe(400);
    expect(plain.headers['content-type']).toBe('application/json');
    expect(
      plain
        .json<ErrorBody>()
        .errors.map((e) => e.field)
        .sort(),
    ).toEqual(['page', 'size']);
    const problem = await service.app.inject({
      url: '/api/users?page=-1&size=abc',
      headers: { accept: 'application/problem+json, application/json;q=0.9' },
    });
    expect(problem.status).toBe(400);
    expect(problem.headers['content-type']).toBe('application/problem+json');
    expect(problem.json()).toMatchObject({ type: 'about:blank', title: 'Bad Request', status: 400, code: 'PIPE_VALIDATION' });
    expect(problem.json<ErrorBody>().errors.map((e) => e.field)).toEqual(['size', 'page']);
  });

  it('serves good ids as before', async () => {
    expect((await service.app.inject('/api/users/1')).status).toBe(200);
    expect((await service.app.inject('/api/users/1/orders/1')).status).toBe(404);
  });
});
