/**
 * A readable name for a type token in error messages: a class's name, a descriptor's `name`
 * field, else its constructor's name (never `[object Object]`).
 */
export function typeName(type: unknown): string {
  if (typeof type === 'function') return type.name === '' ? 'anonymous function' : type.name;
  if (typeof type === 'object' && type !== null) {
    const name = (type as { name?: unknown }).name;
    if (typeof name === 'string') return name;
    return (type as object).constructor?.name ?? 'object';
  }
  return String(type as string | number | boolean | bigint | symbol | undefined);
}

/** A client-supplied value shown in an error message: at most 40 characters. */
export function truncate(s: string): string {
  return s.length > 40 ? `${s.slice(0, 40)}...` : s;
}

/** A component's name for traces: its `name` field, else its class name. */
export function nameOf(component: object): string {
  const n = (component as { name?: unknown }).name;
  return typeof n === 'string' ? n : component.constructor.name;
}
