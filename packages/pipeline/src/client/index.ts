/**
 * `@jaxrs-node/pipeline/client`: typed HTTP clients from the same decorated contracts the server
 * uses, on undici 7 (an optional peer dependency, needed by this entry point only), with the
 * JAX-RS client provider model: filters, interceptors, readers and writers, exception mappers.
 * @example
 * import { createClient } from '@jaxrs-node/pipeline/client';
 * const users = createClient(UserContract, { baseUrl: 'http://users.internal:8080', deadline: 2_000 });
 * const ada = await users.get(1);
 */
import 'reflect-metadata';
// First: without undici this import fails with how to install it.
import './undici.js';

export { Client, ClientBuilder, clientOf, createClient, withCallOptions } from './client.js';
export type { CallOptions, ClientOptions, PropagationRule } from './options.js';
export type { ByteRangeRequest } from './range.js';
export type { ContentRange } from '../core/ranges/byte-ranges.js';
export type { ClientParameters, Contract, ContractClient, ProxiedResult, ResponseContractClient } from './proxy.js';
export { ClientEntity, InvocationBuilder, WebTarget } from './target.js';
export { ClientRequestContext } from './request-context.js';
export type { ClientHeaders } from './request-context.js';
export { ClientResponse } from './response.js';
export type { EntityOf } from './response.js';
export { ClientErrorCode, ClientProcessingError, ClientResponseError, ClientTimeoutError } from './errors.js';
export type { TimeoutPhase } from './errors.js';
export type {
  ClientFailureMapper,
  ClientReaderInterceptor,
  ClientReaderInterceptorContext,
  ClientRequestFilter,
  ClientResponseFilter,
  ClientWriterInterceptor,
  ClientWriterInterceptorContext,
  ResponseExceptionMapper,
} from './contracts.js';
export type { RetryOptions } from './retry.js';
export { inProcess } from './in-process.js';
export { AttemptSignal } from './transport.js';
export type { Transport, TransportRequest, TransportResponse } from './transport.js';
export { CLIENT_CHANNEL_NAMES } from './diagnostics.js';
export { ClientGzipFeature, GzipRequestEncoder, GzipResponseDecoder } from './gzip.js';
export type { GzipRequestEncoderOptions, GzipResponseDecoderOptions } from './gzip.js';
export { FormWriter } from './body-providers.js';
export { ClientMultipartFeature } from './multipart.js';
export { EventStream, ServerSentEvent } from './events.js';
export type { EventStreamOptions } from './events.js';
export { EntityPart } from '../features/multipart/entity-part.js';
export type { EntityPartOptions } from '../features/multipart/entity-part.js';
