/**
 * The HTTP side of `Idempotency-Key` (domain/common/idempotency.ts): the request's fingerprint and the
 * response of a keyed POST, fresh or replayed from the stored first answer.
 */
import { Response, type UriInfo } from '@jaxrs-node/pipeline';
import { REPLAYED_HEADER, type Idempotent } from '../domain/common/idempotency.js';

/** Header carrying the key (https://datatracker.ietf.org/doc/draft-ietf-httpapi-idempotency-key-header/). */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

/** What makes two keyed POSTs "the same": the path and the body as parsed (canonical JSON). */
export function fingerprintOf(uri: UriInfo, body: unknown): string {
  return `POST ${uri.path} ${body === undefined ? '' : JSON.stringify(body)}`;
}

/**
 * The response of a keyed write: `fresh(result)` for a write made now, else the stored answer
 * (status, `Location`, body) with `Idempotent-Replayed: true`.
 *
 * @example
 * return respond(outcome, (user) => Response.created(uri).entity(user).build());
 */
export function respond<T>(outcome: Idempotent<T>, fresh: (result: T) => Response): Response {
  if (!outcome.replayed) return fresh(outcome.result);
  const { status, location, body } = outcome.answer;
  const builder = Response.status(status).entity(body).header(REPLAYED_HEADER, 'true');
  if (location !== undefined) builder.location(location);
  return builder.build();
}
