/**
 * JwtVerifier: the signature examples of RFC 7515 Appendix A and RFC 8037 Appendix A.4 (their
 * published keys and tokens, re-typed), tokens signed here with node:crypto for every algorithm,
 * the claim checks, and the attacks of RFC 8725 (alg none, algorithm confusion, forged kid,
 * oversized and malformed tokens).
 */
import { createPublicKey, createSecretKey, generateKeyPairSync, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  JWT_ALGORITHMS,
  JwtConfigurationError,
  JwtVerificationError,
  JwtVerifier,
  type JwtAlgorithm,
  type JwtFailure,
} from '../../../src/index.js';
import { b64, keyFor, signature, signJwt } from '../../helpers/jwt-tokens.js';

/** RFC 7515 A.1-A.3 sign the same claims: `{"iss":"joe",\r\n "exp":1300819380,\r\n "http://example.com/is_root":true}`. */
const RFC_PAYLOAD = 'eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ';
/** A moment when the examples' exp (2011-03-22T18:43:00Z) was still ahead. */
const BEFORE_RFC_EXP = () => 1300819380_000 - 3_600_000;

const A1 = {
  jwk: { kty: 'oct', k: 'AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow' },
  token: `eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9.${RFC_PAYLOAD}.dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk`,
};
const A2 = {
  jwk: {
    kty: 'RSA',
    n: 'ofgWCuLjybRlzo0tZWJjNiuSfb4p4fAkd_wWJcyQoTbji9k0l8W26mPddxHmfHQp-Vaw-4qPCJrcS2mJPMEzP1Pt0Bm4d4QlL-yRT-SFd2lZS-pCgNMsD1W_YpRPEwOWvG6b32690r2jZ47soMZo9wGzjb_7OMg0LOL-bSf63kpaSHSXndS5z5rexMdbBYUsLA9e-KXBdQOS-UTo7WTBEMa2R2CapHg665xsmtdVMTBQY4uDZlxvb3qCo5ZwKh9kG4LT6_I5IhlJH7aGhyxXFvUK-DWNmoudF8NAco9_h9iaGNj8q2ethFkMLs91kzk2PAcDTW9gb54h4FRWyuXpoQ',
    e: 'AQAB',
  },
  token:
    `eyJhbGciOiJSUzI1NiJ9.${RFC_PAYLOAD}.` +
    'cC4hiUPoj9Eetdgtv3hF80EGrhuB__dzERat0XF9g2VtQgr9PJbu3XOiZj5RZmh7AAuHIm4Bh-0Qc_lF5YKt_O8W2Fp5jujGbds9uJdbF9CUAr7t1dnZcAcQjbKBYNX4BAynRFdiuB--f_nZLgrnbyTyWzO75vRK5h6xBArLIARNPvkSjtQBMHlb1L07Qe7K0GarZRmB_eSN9383LcOLn6_dO--xi12jzDwusC-eOkHWEsqtFZESc6BfI7noOPqvhJ1phCnvWh6IeYI2w9QOYEUipUTI8np6LbgGY9Fs98rqVt5AXLIhWkWywlVmtVrBp0igcN_IoypGlUPQGe77Rw',
};
const A3 = {
  jwk: { kty: 'EC', crv: 'P-256', x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU', y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0' },
  token: `eyJhbGciOiJFUzI1NiJ9.${RFC_PAYLOAD}.DtEhU3ljbEg8L38VWAfUAqOyKAM6-Xx-F4GawxaepmXFCgfTjDxw5djxLa8ISlSApmWQxfKTUJqPP3-Kg6NU1Q`,
};
/** RFC 8037 A.1/A.4: an Ed25519 JWS whose payload is the text "Example of Ed25519 signing". */
const RFC8037 = {
  jwk: { kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo' },
  token:
    'eyJhbGciOiJFZERTQSJ9.RXhhbXBsZSBvZiBFZDI1NTE5IHNpZ25pbmc.hgyY0il_MGCjP0JzlnLWG1PPOt7-09PGcvMg3AIbQR6dWbhijcNR4ki4iylGjg5BhVsPt9g7sVvpAr_MuM0KAg',
};

async function failure(p: Promise<unknown>): Promise<JwtFailure> {
  const e: unknown = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(JwtVerificationError);
  return (e as JwtVerificationError).failure;
}

const NOW = 1_800_000_000_000;
const clock = () => NOW;
const claims = (extra: object = {}) => ({ sub: 'alice', iat: NOW / 1000 - 10, exp: NOW / 1000 + 300, ...extra });

describe('RFC 7515 Appendix A and RFC 8037 A.4 examples', () => {
  it('A.1 HS256: verifies with the example key while its exp was ahead, and is expired today', async () => {
    const v = new JwtVerifier({ algorithms: ['HS256'], keys: [A1.jwk], clock: BEFORE_RFC_EXP });
    const c = await v.verify(A1.token);
    expect(c).toEqual({ iss: 'joe', exp: 1300819380, 'http://example.com/is_root': true });
    expect(await failure(new JwtVerifier({ algorithms: ['HS256'], keys: [A1.jwk] }).verify(A1.token))).toBe('expired');
  });

  it('A.2 RS256 and A.3 ES256 verify with the example public keys', async () => {
    for (const [alg, ex] of [
      ['RS256', A2],
      ['ES256', A3],
    ] as const) {
      const v = new JwtVerifier({ algorithms: [alg], keys: [ex.jwk], clock: BEFORE_RFC_EXP });
      expect((await v.verify(ex.token)).iss).toBe('joe');
    }
  });

  it('RFC 8037 A.4 EdDSA: the JWS layer verifies and yields the payload text', async () => {
    const v = new JwtVerifier({ algorithms: ['EdDSA'], keys: [RFC8037.jwk] });
    const { header, payload } = await v.verifySignature(RFC8037.token);
    expect(header.alg).toBe('EdDSA');
    expect(payload.toString()).toBe('Example of Ed25519 signing');
    // Not a claims set: verify() refuses it rather than guessing.
    expect(await failure(v.verify(RFC8037.token))).toBe('malformed');
  });

  it('one changed bit in the payload or signature fails every example', async () => {
    for (const [alg, ex] of [
      ['HS256', A1],
      ['RS256', A2],
      ['ES256', A3],
    ] as const) {
      const v = new JwtVerifier({ algorithms: [alg], keys: [ex.jwk], clock: BEFORE_RFC_EXP });
      const [h, p, s] = ex.token.split('.') as [string, string, string];
      const flipped = Buffer.from(p, 'base64url');
      flipped[5]! ^= 1;
      expect(await failure(v.verify(`${h}.${flipped.toString('base64url')}.${s}`))).toBe('signature');
      const sig = Buffer.from(s, 'base64url');
      sig[0]! ^= 0x80;
      expect(await failure(v.verify(`${h}.${p}.${sig.toString('base64url')}`))).toBe('signature');
    }
  });
});

describe('every algorithm, with keys and tokens made by node:crypto', () => {
  it.each(JWT_ALGORITHMS)('%s verifies its own tokens and refuses another key of the same type', async (alg) => {
    const k = keyFor(alg);
    const v = new JwtVerifier({ algorithms: [alg], keys: [k.verifying], clock });
    const token = signJwt(alg, k.signing, claims());
    expect((await v.verify(token)).sub).toBe('alice');
    const other = keyFor(alg, 1);
    expect(await failure(new JwtVerifier({ algorithms: [alg], keys: [other.verifying], clock }).verify(token))).toBe('signature');
  });

  it('takes keys as JWKs (private ones give their public half), PEM text and certificates-free PEM of private keys', async () => {
    const k = keyFor('ES384');
    const token = signJwt('ES384', k.signing, claims());
    for (const key of [
      k.verifying.export({ format: 'jwk' }),
      k.signing.export({ format: 'jwk' }),
      k.verifying.export({ format: 'pem', type: 'spki' }).toString(),
      k.signing.export({ format: 'pem', type: 'pkcs8' }).toString(),
    ]) {
      expect((await new JwtVerifier({ algorithms: ['ES384'], keys: [key], clock }).verify(token)).sub).toBe('alice');
    }
  });

  it('selects the key by kid among several, and a JWK alg limits its key to that algorithm', async () => {
    const a = keyFor('RS256');
    const b = keyFor('RS256', 1);
    const v = new JwtVerifier({
      algorithms: ['RS256', 'PS256'],
      keys: [
        { ...a.verifying.export({ format: 'jwk' }), kid: 'a' },
        { ...b.verifying.export({ format: 'jwk' }), kid: 'b', alg: 'PS256' },
      ],
      clock,
    });
    expect((await v.verify(signJwt('RS256', a.signing, claims(), { kid: 'a' }))).sub).toBe('alice');
    expect((await v.verify(signJwt('PS256', b.signing, claims(), { kid: 'b' }))).sub).toBe('alice');
    expect(await failure(v.verify(signJwt('RS256', b.signing, claims(), { kid: 'b' })))).toBe('no-key');
    expect(await failure(v.verify(signJwt('RS256', a.signing, claims(), { kid: 'c' })))).toBe('no-key');
    // Without a kid every fitting key is tried.
    expect((await v.verify(signJwt('RS256', a.signing, claims()))).sub).toBe('alice');
  });
});

describe('attacks', () => {
  const rsa = keyFor('RS256');
  const rs = () => new JwtVerifier({ algorithms: ['RS256'], keys: [rsa.verifying], clock });

  it('alg none is never accepted, and cannot even be configured', async () => {
    const unsigned = `${b64({ alg: 'none' })}.${b64(claims())}.`;
    expect(await failure(rs().verify(unsigned))).toBe('malformed');
    expect(await failure(rs().verify(`${b64({ alg: 'none' })}.${b64(claims())}.AAAA`))).toBe('algorithm');
    expect(() => new JwtVerifier({ algorithms: ['none' as JwtAlgorithm], keys: [rsa.verifying] })).toThrow(
      /not one of .*unsigned tokens are never accepted/,
    );
  });

  it('HS256 signed with the RSA public key as the secret is refused (algorithm confusion)', async () => {
    const pem = rsa.verifying.export({ format: 'pem', type: 'spki' });
    const forged = signJwt('HS256', createSecretKey(Buffer.from(pem)), claims());
    expect(await failure(rs().verify(forged))).toBe('algorithm');
    // Even when the deployment allows both families, the RSA key never serves as an HMAC secret.
    const both = new JwtVerifier({ algorithms: ['RS256', 'HS256'], keys: [rsa.verifying, createSecretKey(randomBytes(32))], clock });
    expect(await failure(both.verify(forged))).toBe('signature');
    const jwkForged = signJwt('HS256', createSecretKey(Buffer.from(JSON.stringify(rsa.verifying.export({ format: 'jwk' })))), claims());
    expect(await failure(both.verify(jwkForged))).toBe('signature');
  });

  it('a kid with path characters is just an unknown kid', async () => {
    for (const kid of ['../../../../etc/passwd', '/dev/null', 'a/../b', '..\\..\\keys', 'https://evil.example/jwks']) {
      expect(
        await failure(
          new JwtVerifier({ algorithms: ['RS256'], keys: [{ ...rsa.verifying.export({ format: 'jwk' }), kid: 'k1' }], clock }).verify(
            signJwt('RS256', rsa.signing, claims(), { kid }),
          ),
        ),
      ).toBe('no-key');
    }
  });

  it('jku, x5u and jwk headers are ignored: the key comes only from the configuration', async () => {
    const attacker = keyFor('RS256', 1);
    const token = signJwt('RS256', attacker.signing, claims(), {
      jwk: attacker.verifying.export({ format: 'jwk' }),
      jku: 'https://evil.example/jwks',
    });
    expect(await failure(rs().verify(token))).toBe('signature');
  });

  it('expired, not yet valid, issued in the future: each within the clock tolerance only', async () => {
    const now = NOW / 1000;
    const at = (c: object) => rs().verify(signJwt('RS256', rsa.signing, c));
    expect(await failure(at({ sub: 'a', exp: now - 61 }))).toBe('expired');
    expect((await at({ sub: 'a', exp: now - 59 })).sub).toBe('a');
    expect(await failure(at({ sub: 'a', exp: now + 100, nbf: now + 61 }))).toBe('not-yet-valid');
    expect(await failure(at({ sub: 'a', exp: now + 100, iat: now + 61 }))).toBe('issued-in-future');
    expect(await failure(at({ sub: 'a', exp: String(now + 100) }))).toBe('claim-type');
    expect(await failure(at({ sub: 'a' }))).toBe('missing-claim');
    const strict = new JwtVerifier({ algorithms: ['RS256'], keys: [rsa.verifying], clock, clockToleranceSeconds: 0 });
    expect(await failure(strict.verify(signJwt('RS256', rsa.signing, { exp: now - 1 })))).toBe('expired');
  });

  it('a token for another audience or issuer is refused; aud may be an array', async () => {
    const v = new JwtVerifier({
      algorithms: ['RS256'],
      keys: [rsa.verifying],
      clock,
      issuer: 'https://id.example',
      audience: ['api', 'api2'],
    });
    const t = (c: object) => v.verify(signJwt('RS256', rsa.signing, claims(c)));
    expect((await t({ iss: 'https://id.example', aud: 'api' })).aud).toBe('api');
    expect((await t({ iss: 'https://id.example', aud: ['other', 'api2'] })).sub).toBe('alice');
    expect(await failure(t({ iss: 'https://id.example', aud: 'other' }))).toBe('audience');
    expect(await failure(t({ iss: 'https://id.example' }))).toBe('audience');
    expect(await failure(t({ iss: 'https://evil.example', aud: 'api' }))).toBe('issuer');
    expect(await failure(t({ aud: 'api' }))).toBe('issuer');
  });

  it('an oversized token is refused before it is decoded', async () => {
    const big = signJwt('RS256', rsa.signing, claims({ pad: 'x'.repeat(9000) }));
    expect(await failure(rs().verify(big))).toBe('too-large');
    const roomy = new JwtVerifier({ algorithms: ['RS256'], keys: [rsa.verifying], clock, maxTokenBytes: 16384 });
    expect((await roomy.verify(big)).sub).toBe('alice');
  });

  it('malformed shapes: padding, foreign characters, two or four parts, JWE, a non-object header', async () => {
    const good = signJwt('RS256', rsa.signing, claims());
    const [h, p, s] = good.split('.') as [string, string, string];
    for (const bad of [
      `${h}=.${p}.${s}`,
      `${h}.${p}!.${s}`,
      `${h}.${p}`,
      `${good}.x`,
      `${h}.${p}.${s}.a.b`,
      `${b64('[1]')}.${p}.${s}`,
      `${b64('not json')}.${p}.${s}`,
      `.${p}.${s}`,
      `${h}.${p}.`,
      `${h}.${p}.${s}A`,
      '',
      'a.b.c',
    ]) {
      expect([await failure(rs().verify(bad))]).toContainEqual(expect.stringMatching(/^(malformed|signature)$/));
    }
    // A signature with different unused trailing bits decodes to the same bytes: refused as malformed.
    const last = s.at(-1)!;
    const sibling = s.slice(0, -1) + (last === 'A' ? 'B' : String.fromCharCode(last.charCodeAt(0) ^ 1));
    if (Buffer.from(sibling, 'base64url').equals(Buffer.from(s, 'base64url')))
      expect(await failure(rs().verify(`${h}.${p}.${sibling}`))).toBe('malformed');
  });

  it('crit is refused; typ is checked when configured', async () => {
    expect(await failure(rs().verify(signJwt('RS256', rsa.signing, claims(), { crit: ['exp'], exp: 1 })))).toBe('critical');
    const typed = new JwtVerifier({ algorithms: ['RS256'], keys: [rsa.verifying], clock, typ: 'at+jwt' });
    expect((await typed.verify(signJwt('RS256', rsa.signing, claims(), { typ: 'application/at+JWT' }))).sub).toBe('alice');
    expect(await failure(typed.verify(signJwt('RS256', rsa.signing, claims(), { typ: 'JWT' })))).toBe('type');
    expect(await failure(typed.verify(signJwt('RS256', rsa.signing, claims())))).toBe('type');
  });

  it('a signature of the wrong length and a DER-encoded ECDSA signature are refused', async () => {
    const ec = keyFor('ES256');
    const v = new JwtVerifier({ algorithms: ['ES256'], keys: [ec.verifying], clock });
    const input = `${b64({ alg: 'ES256' })}.${b64(claims())}`;
    const { sign } = await import('node:crypto');
    const der = sign('sha256', Buffer.from(input), ec.signing);
    expect(await failure(v.verify(`${input}.${der.toString('base64url')}`))).toBe('signature');
    expect(await failure(v.verify(`${input}.${signature('ES256', input, ec.signing).subarray(0, 63).toString('base64url')}`))).toBe(
      'signature',
    );
  });
});

describe('configuration is checked at construction', () => {
  const rsa = keyFor('RS256');
  const refused = (options: object, message: RegExp) => {
    let error: unknown;
    try {
      new JwtVerifier(options as never);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(JwtConfigurationError);
    expect((error as JwtConfigurationError).code).toBe('PIPE_JWT_CONFIG');
    expect((error as Error).message).toMatch(message);
  };

  it('refuses a missing or empty allow-list, unknown algorithms and no keys', () => {
    refused({ keys: [rsa.verifying] }, /algorithms is required/);
    refused({ algorithms: [], keys: [rsa.verifying] }, /algorithms is required/);
    refused({ algorithms: ['RS257'], keys: [rsa.verifying] }, /RS257/);
    refused({ algorithms: ['RS256'] }, /no keys; give keys .* or jwksUrl/);
  });

  it('refuses a key of the wrong type or size for every allowed algorithm, naming the key', () => {
    const small = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey;
    refused({ algorithms: ['RS256'], keys: [rsa.verifying, small] }, /keys\[1\] fits none .*at least 2048 bits/);
    refused({ algorithms: ['HS384'], keys: [createSecretKey(randomBytes(32))] }, /keys\[0\].*at least 48 bytes/);
    refused({ algorithms: ['ES384'], keys: [keyFor('ES256').verifying] }, /P-384/);
    refused({ algorithms: ['HS256'], keys: [rsa.verifying] }, /HS256 needs a secret/);
    refused({ algorithms: ['EdDSA'], keys: ['not a pem'] }, /keys\[0\] cannot be imported/);
    refused({ algorithms: ['RS256'], keys: [{ ...rsa.verifying.export({ format: 'jwk' }), use: 'enc' }] }, /not for verifying/);
  });

  it('refuses a JWKS URL over plain http to another host, naming the option', () => {
    refused({ algorithms: ['RS256'], jwksUrl: 'http://id.example/jwks' }, /jwksUrl: http:\/\/id\.example is refused; .*https/);
    refused({ algorithms: ['RS256'], jwksUrl: 'ftp://127.0.0.1/jwks' }, /jwksUrl/);
    refused({ algorithms: ['RS256'], jwksUrl: 'not a url' }, /jwksUrl: .* is not a URL/);
    expect(() => new JwtVerifier({ algorithms: ['RS256'], jwksUrl: 'http://127.0.0.1:1/jwks' })).not.toThrow();
    expect(() => new JwtVerifier({ algorithms: ['RS256'], jwksUrl: 'http://[::1]:1/jwks' })).not.toThrow();
    expect(() => new JwtVerifier({ algorithms: ['RS256'], jwksUrl: 'https://id.example/jwks' })).not.toThrow();
  });

  it('refuses bad bounds and claims options', () => {
    refused({ algorithms: ['RS256'], keys: [rsa.verifying], issuer: '' }, /issuer/);
    refused({ algorithms: ['RS256'], keys: [rsa.verifying], audience: [] }, /audience/);
    refused({ algorithms: ['RS256'], keys: [rsa.verifying], clockToleranceSeconds: -1 }, /clockToleranceSeconds/);
    refused({ algorithms: ['RS256'], jwksUrl: 'https://id.example/jwks', jwks: { maxBytes: 0 } }, /jwks\.maxBytes/);
    refused(
      { algorithms: ['RS256'], jwksUrl: 'https://id.example/jwks', jwks: { minCacheSeconds: 10, maxCacheSeconds: 5 } },
      /minCacheSeconds/,
    );
  });

  it('a public key made from a private PEM is the same key', () => {
    const pem = rsa.signing.export({ format: 'pem', type: 'pkcs8' }).toString();
    expect(createPublicKey(pem).equals(rsa.verifying)).toBe(true);
  });
});

describe('a token without kid', () => {
  it('is tried against at most 5 fitting keys', async () => {
    const k = keyFor('HS256');
    const others = Array.from({ length: 5 }, () => createSecretKey(randomBytes(32)));
    const token = signJwt('HS256', k.signing, claims());
    expect((await new JwtVerifier({ algorithms: ['HS256'], keys: [...others.slice(0, 4), k.verifying], clock }).verify(token)).sub).toBe(
      'alice',
    );
    expect(await failure(new JwtVerifier({ algorithms: ['HS256'], keys: [...others, k.verifying], clock }).verify(token))).toBe(
      'signature',
    );
    // With a kid, the key is found however many there are.
    const named = [
      ...others.map((o, i) => ({ kty: 'oct', k: o.export().toString('base64url'), kid: `o${i}` })),
      { kty: 'oct', k: k.verifying.export().toString('base64url'), kid: 'mine' },
    ];
    expect(
      (await new JwtVerifier({ algorithms: ['HS256'], keys: named, clock }).verify(signJwt('HS256', k.signing, claims(), { kid: 'mine' })))
        .sub,
    ).toBe('alice');
  });
});
