/**
 * JSON Schema (draft 2020-12) of the User representation, as `docs/api.md` rule 3 states it: required id,
 * email, firstName, lastName, createdAt; additionalProperties false; age 18..100; names 1..50.
 *
 * The validator below is a tiny interpreter for exactly the keywords this schema uses (type,
 * minimum, maximum, minLength, maxLength, minItems, items, format, required, properties,
 * additionalProperties); it refuses any other keyword so the constant and the checker cannot
 * drift apart silently. Tests run every emitted representation through it.
 */
import { codePointLength, isValidEmail } from './validation.js';

/** The User response schema. */
export const USER_JSON_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'urn:jaxrs-node:user-service:user',
  title: 'User',
  type: 'object',
  additionalProperties: false,
  required: ['id', 'email', 'firstName', 'lastName', 'createdAt'],
  properties: {
    id: { type: 'integer', minimum: 1 },
    email: { type: 'string', format: 'email', maxLength: 254 },
    firstName: { type: 'string', minLength: 1, maxLength: 50 },
    lastName: { type: 'string', minLength: 1, maxLength: 50 },
    age: { type: 'integer', minimum: 18, maximum: 100 },
    fullName: { type: 'string' },
    status: { type: 'string' },
    roles: { type: 'array', minItems: 1, items: { type: 'string' } },
    createdAt: { type: 'string', format: 'date-time' },
    updatedAt: { type: 'string', format: 'date-time' },
    birthDate: { type: 'string', format: 'date' },
  },
} as const;

interface SchemaNode {
  type?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  items?: SchemaNode;
  format?: string;
  required?: readonly string[];
  properties?: Readonly<Record<string, SchemaNode>>;
  additionalProperties?: boolean;
}

const KNOWN_KEYWORDS = new Set([
  '$schema',
  '$id',
  'title',
  'type',
  'minimum',
  'maximum',
  'minLength',
  'maxLength',
  'minItems',
  'items',
  'format',
  'required',
  'properties',
  'additionalProperties',
]);

/** RFC 3339 §5.6 full-date and date-time (any offset; fractional seconds allowed). */
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4}-\d{2}-\d{2})[Tt]([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)(\.\d+)?([Zz]|[+-]([01]\d|2[0-3]):[0-5]\d)$/;
function isCalendarDate(value: string): boolean {
  const match = DATE.exec(value);
  if (match === null) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  // Date.UTC maps years 0-99 to 1900-1999; setUTCFullYear undoes that.
  date.setUTCFullYear(year);
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

function checkFormat(format: string, value: string): boolean {
  switch (format) {
    case 'email':
      return isValidEmail(value); // the input rule, so the two cannot disagree
    case 'date':
      return isCalendarDate(value);
    case 'date-time': {
      const match = DATE_TIME.exec(value);
      return match !== null && isCalendarDate(match[1] as string);
    }
    default:
      throw new Error(`user-schema: unsupported format ${format}`);
  }
}

function typeMatches(type: string, value: unknown): boolean {
  switch (type) {
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    case 'array':
      return Array.isArray(value);
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    default:
      throw new Error(`user-schema: unsupported type ${type}`);
  }
}

function check(node: SchemaNode, value: unknown, path: string, errors: string[]): void {
  for (const keyword of Object.keys(node)) {
    if (!KNOWN_KEYWORDS.has(keyword)) throw new Error(`user-schema: unsupported keyword ${keyword}`);
  }
  if (node.type !== undefined && !typeMatches(node.type, value)) {
    errors.push(`${path}: must be of type ${node.type}`);
    return;
  }
  if (typeof value === 'number') {
    if (node.minimum !== undefined && value < node.minimum) errors.push(`${path}: must be >= ${node.minimum}`);
    if (node.maximum !== undefined && value > node.maximum) errors.push(`${path}: must be <= ${node.maximum}`);
  }
  if (typeof value === 'string') {
    const length = codePointLength(value); // JSON Schema counts code points
    if (node.minLength !== undefined && length < node.minLength) errors.push(`${path}: shorter than ${node.minLength}`);
    if (node.maxLength !== undefined && length > node.maxLength) errors.push(`${path}: longer than ${node.maxLength}`);
    if (node.format !== undefined && !checkFormat(node.format, value)) errors.push(`${path}: not a valid ${node.format}`);
  }
  if (Array.isArray(value)) {
    if (node.minItems !== undefined && value.length < node.minItems) errors.push(`${path}: fewer than ${node.minItems} items`);
    if (node.items !== undefined) value.forEach((item, i) => check(node.items as SchemaNode, item, `${path}/${i}`, errors));
  }
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const record = value as Record<string, unknown>;
    for (const name of node.required ?? []) {
      if (!Object.hasOwn(record, name)) errors.push(`${path}: missing required property ${name}`);
    }
    for (const [name, member] of Object.entries(record)) {
      const sub = node.properties?.[name];
      if (sub !== undefined) check(sub, member, `${path}/${name}`, errors);
      else if (node.additionalProperties === false) errors.push(`${path}: unexpected property ${name}`);
    }
  }
}

/**
 * Checks `value` against {@link USER_JSON_SCHEMA}; returns one message per failure (empty = valid).
 *
 * @example validateAgainstUserSchema({ id: 1 }) // ['/: missing required property email', ...]
 */
export function validateAgainstUserSchema(value: unknown): string[] {
  const errors: string[] = [];
  check(USER_JSON_SCHEMA as SchemaNode, value, '', errors);
  return errors.map((error) => (error.startsWith(':') ? '/' + error : error));
}
