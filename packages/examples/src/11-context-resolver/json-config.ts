import { JsonOptions, ResolvesContext, type ContextResolver, type TypeToken } from '@jaxrs-node/pipeline';

/** An audit event: machines read it, so dates are epoch milliseconds and absent fields are omitted. */
export class AuditEvent {
  constructor(
    readonly id: number,
    readonly action: string,
    readonly at: Date,
    readonly actor: string | null,
  ) {}
}

/** A report: people read it, so it is indented. */
export class Report {
  constructor(
    readonly title: string,
    readonly generatedAt: Date,
    readonly totals: Record<string, number>,
    readonly comment: string | null,
  ) {}
}

/**
 * A type token for "array of AuditEvent" (JAX-RS `GenericType<List<AuditEvent>>`). Arrays have
 * the runtime type `Array`, which says nothing of their elements; a method passes this token as
 * the entity type so the resolver can tell.
 */
export const AUDIT_EVENT_LIST: TypeToken = Object.freeze({ name: 'AuditEvent[]' });

/**
 * A `ContextResolver<JsonOptions>`: the JSON writer asks it for options for the type it is
 * about to write; `undefined` means the defaults (compact, ISO dates, nulls kept).
 * `getContext` runs on every JSON write, so it returns prebuilt, shared objects.
 */
@ResolvesContext(JsonOptions)
export class JsonConfig implements ContextResolver<JsonOptions> {
  private readonly machine = new JsonOptions({ dateFormat: 'epoch-millis', omitNulls: true });
  private readonly human = new JsonOptions({ indent: 2 });

  getContext(type: TypeToken): JsonOptions | undefined {
    if (type === AuditEvent || type === AUDIT_EVENT_LIST) return this.machine;
    if (type === Report) return this.human;
    return undefined;
  }
}
