/**
 * A cookie to set (Jakarta REST 3.1 §3.5.1 `NewCookie`): the `Set-Cookie` header of RFC 6265 §4.1,
 * with the `SameSite` and `Partitioned` attributes browsers support (RFC 6265bis drafts).
 */

/** `token` of RFC 9110 §5.6.2: the `cookie-name` of RFC 6265 §4.1.1. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** `cookie-value` of RFC 6265 §4.1.1: cookie-octets, optionally between double quotes. */
const COOKIE_VALUE = /^(?:[\x21\x23-\x2b\x2d-\x3a\x3c-\x5b\x5d-\x7e]*|"[\x21\x23-\x2b\x2d-\x3a\x3c-\x5b\x5d-\x7e]*")$/;
/** `av-octet` of RFC 6265 §4.1.1 (any CHAR except CTLs or `;`): the `Path` value. */
const AV_OCTETS = /^[\x20-\x3a\x3c-\x7e]+$/;
/** A `<subdomain>` of RFC 1034 §3.5 as relaxed by RFC 1123 §2.1 (labels may start with a digit). */
const DOMAIN = /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

/** The `SameSite` attribute's values. */
export type SameSite = 'Strict' | 'Lax' | 'None';

/** The attributes of a {@link NewCookie} (RFC 6265 §4.1.2), each optional. */
export interface NewCookieOptions {
  /** `Path`: the cookie is sent for this path and below. */
  readonly path?: string;
  /** `Domain`: the cookie is also sent to subdomains of this host (without it: this host only). */
  readonly domain?: string;
  /** `Max-Age` in seconds; `0` tells the client to delete the cookie now (RFC 6265 §5.2.2). */
  readonly maxAge?: number;
  /** `Expires`: when the cookie expires (`Max-Age` wins when both are set, RFC 6265 §4.1.2.2). */
  readonly expires?: Date;
  /** `Secure`: only over HTTPS. */
  readonly secure?: boolean;
  /** `HttpOnly`: not visible to scripts. */
  readonly httpOnly?: boolean;
  /** `SameSite`: whether cross-site requests carry it; `None` needs {@link secure}. */
  readonly sameSite?: SameSite;
  /** `Partitioned` (CHIPS): stored per top-level site; needs {@link secure}. */
  readonly partitioned?: boolean;
}

/**
 * A cookie for the `Set-Cookie` header (JAX-RS `NewCookie`); pass it to `ResponseBuilder.cookie`.
 * Name and value are checked when it is made (TypeError): the name must be a token, the value
 * cookie-octets (no spaces, `"`, `,`, `;` or `\`; percent-encode anything else first, e.g. with
 * `encodeURIComponent`, which the request side's cookie parsing decodes). `SameSite=None` and
 * `Partitioned` need `Secure`; the `__Secure-` and `__Host-` name prefixes get their rules too.
 *
 * @example
 * const session = new NewCookie('sid', token, { path: '/', httpOnly: true, secure: true, sameSite: 'Lax', maxAge: 3600 });
 * session.toString(); // 'sid=…; Path=/; Max-Age=3600; Secure; HttpOnly; SameSite=Lax'
 * return Response.ok(user).cookie(session).build();
 */
export class NewCookie implements NewCookieOptions {
  readonly path?: string;
  readonly domain?: string;
  readonly maxAge?: number;
  readonly expires?: Date;
  readonly secure?: boolean;
  readonly httpOnly?: boolean;
  readonly sameSite?: SameSite;
  readonly partitioned?: boolean;

  constructor(
    /** The cookie's name (a token). */
    readonly name: string,
    /** The cookie's value (cookie-octets, optionally quoted). */
    readonly value: string,
    options: NewCookieOptions = {},
  ) {
    if (typeof name !== 'string' || !TOKEN.test(name)) {
      throw new TypeError(
        `NewCookie: the name ${JSON.stringify(name)} is not a token (RFC 6265 §4.1.1); use letters, digits and !#$%&'*+-.^_\`|~`,
      );
    }
    if (typeof value !== 'string' || !COOKIE_VALUE.test(value)) {
      throw new TypeError(
        `NewCookie: the value of ${name} may not contain spaces, controls, '"', ',', ';' or '\\' (RFC 6265 §4.1.1); ` +
          'percent-encode it first (encodeURIComponent)',
      );
    }
    const { path, domain, maxAge, expires, sameSite } = options;
    if (path !== undefined && (typeof path !== 'string' || !AV_OCTETS.test(path))) {
      throw new TypeError(`NewCookie: path ${JSON.stringify(path)} of ${name} must be non-empty, without ';' or control characters`);
    }
    if (domain !== undefined && (typeof domain !== 'string' || !DOMAIN.test(domain))) {
      throw new TypeError(
        `NewCookie: domain ${JSON.stringify(domain)} of ${name} must be a host name like example.com, without a leading dot`,
      );
    }
    if (maxAge !== undefined && (!Number.isSafeInteger(maxAge) || maxAge < 0)) {
      throw new TypeError(`NewCookie: maxAge of ${name} must be a non-negative integer of seconds, got ${String(maxAge)}`);
    }
    if (expires !== undefined && (!(expires instanceof Date) || Number.isNaN(expires.getTime()))) {
      throw new TypeError(`NewCookie: expires of ${name} must be a valid Date`);
    }
    if (sameSite !== undefined && sameSite !== 'Strict' && sameSite !== 'Lax' && sameSite !== 'None') {
      throw new TypeError(`NewCookie: sameSite of ${name} must be 'Strict', 'Lax' or 'None', got ${JSON.stringify(sameSite)}`);
    }
    const secure = options.secure === true;
    if (sameSite === 'None' && !secure) {
      throw new TypeError(`NewCookie: ${name} has sameSite 'None', which browsers accept only with secure: true`);
    }
    if (options.partitioned === true && !secure) throw new TypeError(`NewCookie: ${name} is partitioned, which needs secure: true`);
    // Cookie name prefixes (RFC 6265bis §4.1.3): clients reject cookies that break them.
    if (name.startsWith('__Secure-') && !secure) throw new TypeError(`NewCookie: a __Secure- cookie (${name}) needs secure: true`);
    if (name.startsWith('__Host-') && (!secure || path !== '/' || domain !== undefined)) {
      throw new TypeError(`NewCookie: a __Host- cookie (${name}) needs secure: true, path: '/' and no domain`);
    }
    const self = this as { -readonly [K in keyof NewCookieOptions]: NewCookieOptions[K] };
    if (path !== undefined) self.path = path;
    if (domain !== undefined) self.domain = domain;
    if (maxAge !== undefined) self.maxAge = maxAge;
    if (expires !== undefined) self.expires = new Date(expires.getTime());
    if (secure) self.secure = true;
    if (options.httpOnly === true) self.httpOnly = true;
    if (sameSite !== undefined) self.sameSite = sameSite;
    if (options.partitioned === true) self.partitioned = true;
  }

  /** The `Set-Cookie` header value (RFC 6265 §4.1.1 `set-cookie-string`). */
  toString(): string {
    let s = `${this.name}=${this.value}`;
    if (this.path !== undefined) s += `; Path=${this.path}`;
    if (this.domain !== undefined) s += `; Domain=${this.domain}`;
    if (this.maxAge !== undefined) s += `; Max-Age=${this.maxAge}`;
    // sane-cookie-date is an IMF-fixdate (RFC 6265 §4.1.1), what toUTCString() writes.
    if (this.expires !== undefined) s += `; Expires=${this.expires.toUTCString()}`;
    if (this.secure === true) s += '; Secure';
    if (this.httpOnly === true) s += '; HttpOnly';
    if (this.sameSite !== undefined) s += `; SameSite=${this.sameSite}`;
    if (this.partitioned === true) s += '; Partitioned';
    return s;
  }
}
