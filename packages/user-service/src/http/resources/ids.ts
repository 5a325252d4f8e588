import { BadRequestError } from '@jaxrs-node/pipeline';

/**
 * A resource id in a path: a positive decimal integer within the safe range. The pipeline converts
 * `@PathParam('id') id: Id` through `Id.fromString`, so `abc`, `1.5`, `1e3`, `-1` or `0` are a 400
 * naming the parameter before any resource code runs.
 */
export class Id {
  static fromString(raw: string): number {
    if (!/^[1-9]\d{0,15}$/.test(raw) || !Number.isSafeInteger(Number(raw))) {
      throw new BadRequestError(`'${raw.slice(0, 20)}' is not a valid id: expected a positive integer`, {
        details: [{ field: 'id', message: 'must be a positive integer' }],
      });
    }
    return Number(raw);
  }
}
