/**
 * Calls that return an entity (contract methods, `get(Type)`) look at the status first: a
 * `ResponseExceptionMapper` that handles it may turn it into an error, and any status >= 400 left
 * over becomes a {@link ClientResponseError}; otherwise the entity is read as the asked type.
 */
import { isUtf8 } from 'node:buffer';
import type { TypeToken } from '../core/context/contracts.js';
import { ClientResponseError } from './errors.js';
import type { ClientChains } from './registry.js';
import type { ClientResponse } from './response.js';

/** The entity of `response` as `type`, or the error its status stands for. */
export async function entityResult(response: ClientResponse, type: TypeToken, chains: ClientChains): Promise<unknown> {
  const status = response.status;
  let buffered = false;
  for (const mapper of chains.responseMappers) {
    const handles = mapper.handles === undefined ? status >= 400 : mapper.handles(status, response.headers);
    if (!handles) continue;
    if (!buffered) {
      buffered = true;
      // Mappers may read the body, several of them: keep it in memory (at most maxResponseBytes).
      await response.bufferEntity().catch(() => undefined);
    }
    const error = await mapper.toError(response);
    if (error !== undefined && error !== null) throw error;
  }
  if (status >= 400) throw await responseError(response);
  return response.readEntity(type);
}

/**
 * The default error of an error status: status, headers and the body as the readers parse it
 * (bytes as text when they are UTF-8); an unreadable body leaves `body` undefined.
 */
export async function responseError(response: ClientResponse): Promise<ClientResponseError> {
  let body: unknown;
  try {
    await response.bufferEntity();
    body = await response.readEntity();
    if (Buffer.isBuffer(body)) body = isUtf8(body) ? body.toString('utf8') : body;
  } catch {
    body = undefined;
  }
  const req = response.request;
  const q = req.uri.indexOf('?');
  // The query is left out of the message: it may carry keys or personal data.
  const target = q < 0 ? req.uri : req.uri.slice(0, q);
  return new ClientResponseError(
    response.status,
    response.headers,
    body,
    `${req.method} ${target} answered ${response.status}${response.reason === '' ? '' : ` ${response.reason}`}`,
  );
}
