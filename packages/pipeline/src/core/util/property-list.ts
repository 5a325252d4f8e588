/**
 * Request properties kept as a flat `[name, value, name, value...]` list: a request has a handful,
 * and a Map costs ~200 bytes. Shared by the server's and the client's request contexts.
 */

/** The value stored under `name`, or undefined. */
export function listGet(list: readonly unknown[] | undefined, name: string): unknown {
  if (list !== undefined) for (let i = 0; i < list.length; i += 2) if (list[i] === name) return list[i + 1];
  return undefined;
}

/** Stores `value` under `name`; returns the list (a new one when there was none). */
export function listSet(list: unknown[] | undefined, name: string, value: unknown): unknown[] {
  if (list === undefined) return [name, value];
  for (let i = 0; i < list.length; i += 2) {
    if (list[i] === name) {
      list[i + 1] = value;
      return list;
    }
  }
  list.push(name, value);
  return list;
}

/** Removes `name` and its value, if present. */
export function listRemove(list: unknown[] | undefined, name: string): void {
  if (list === undefined) return;
  for (let i = 0; i < list.length; i += 2) {
    if (list[i] === name) {
      list.splice(i, 2);
      return;
    }
  }
}

/** The names in the list, in insertion order. */
export function listNames(list: readonly unknown[] | undefined): string[] {
  const names: string[] = [];
  if (list !== undefined) for (let i = 0; i < list.length; i += 2) names.push(list[i] as string);
  return names;
}
