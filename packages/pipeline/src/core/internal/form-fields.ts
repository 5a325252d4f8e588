/**
 * The form parameters a route declares, as compiled at start-up (`@FormParam`s, their part types),
 * and where the parsed form is kept on the request: what a form reader (multipart) and the
 * OpenAPI document need from the parameter compiler, without importing it.
 */
import type { ResourceInfo } from '../context/resource-info.js';
import type { TypeToken } from '../context/contracts.js';

/** Request property under which the parsed form body is kept for `@FormParam`. */
export const FORM_PROPERTY = 'jaxrs-node.form';

/**
 * A static property that marks a class as a form part type: a `@FormParam` of that type (or an
 * array of it, `{ elementType }`) receives the form's own object for the name, unconverted, from
 * `part(name)` / `parts(name)` of the form a reader produced (a multipart reader's parts). A form
 * without them (urlencoded) gives `undefined` / `[]`.
 */
export const FORM_PART_TYPE: unique symbol = Symbol.for('jaxrs-node.form-part-type');

/** A form whose reader also keeps parts as objects (see {@link FORM_PART_TYPE}). */
export interface FormParts {
  part(name: string): unknown;
  parts(name: string): unknown[];
}

export const isFormPartType = (type: TypeToken): boolean => (type as { [FORM_PART_TYPE]?: unknown })[FORM_PART_TYPE] === true;

/** One `@FormParam` of a resource method (its own or a `@BeanParam` field's), as {@link formFields} lists it. */
export interface FormField {
  readonly name: string;
  /** Typed (or its array's elements typed) with a {@link FORM_PART_TYPE}: the form must keep the part itself, not its text. */
  readonly part: boolean;
}

const formFieldsByMethod = new WeakMap<ResourceInfo, FormField[]>();

export function noteFormField(info: ResourceInfo, name: string, type: TypeToken): void {
  let list = formFieldsByMethod.get(info);
  if (list === undefined) formFieldsByMethod.set(info, (list = []));
  list.push({ name, part: isFormPartType(type) });
}

/**
 * The `@FormParam`s of the matched method (`ctx.resourceInfo`), its `@BeanParam`s' included, as
 * compiled at start-up; undefined for a method without any. A reader of a form that must be read
 * whole before the method runs (multipart) uses it to keep only what is asked for.
 */
export function formFields(info: ResourceInfo | undefined): readonly FormField[] | undefined {
  return info === undefined ? undefined : formFieldsByMethod.get(info);
}
