import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { REDACTED, redactText, redactValue } from './redact.ts';

const FERNET = 'gAAAAABmZ3x4Yk9hT2xNc0VfR3pQbFZ2cHdqM1ZrN2hOQ1JfZ2lHc1pfTkN0U0ZwV3dXQ1Vf';

describe('redactText', () => {
  for (const key of ['password', 'secret', 'adminPass', 'original_password', 'application_credential_secret']) {
    it(`masks a JSON "${key}" value`, () => {
      const text = `{"name": "web", "${key}": "s3cr3t-Value", "id": "x"}`;
      assert.equal(redactText(text), `{"name": "web", "${key}": "${REDACTED}", "id": "x"}`);
    });
  }

  it('masks whatever the key’s case and spacing', () => {
    assert.equal(redactText('{"PASSWORD"  :\n "a-b-c-d-e"}'), `{"PASSWORD"  :\n "${REDACTED}"}`);
    assert.equal(redactText('{"AdminPass":"a-b-c-d-e"}'), `{"AdminPass":"${REDACTED}"}`);
  });

  it('masks a value holding escaped quotes and backslashes to its real end', () => {
    const body = JSON.stringify({ password: 'a"b\\c"d', name: 'n' });
    assert.equal(redactText(body), `{"password":"${REDACTED}","name":"n"}`);
  });

  it('masks the id of Keystone’s token auth method', () => {
    const body = JSON.stringify({ auth: { identity: { methods: ['token'], token: { id: 'opaque-token-value' } } } });
    const out = redactText(body);
    assert.ok(!out.includes('opaque-token-value'), out);
    assert.equal(out, `{"auth":{"identity":{"methods":["token"],"token":{"id":"${REDACTED}"}}}}`);
  });

  it('masks X-Auth-Token, X-Subject-Token and X-Service-Token header lines', () => {
    assert.equal(
      redactText('GET /v2.1/servers\nX-Auth-Token: abc123def\nAccept: application/json'),
      `GET /v2.1/servers\nX-Auth-Token: ${REDACTED}\nAccept: application/json`,
    );
    assert.equal(redactText('x-subject-token: tok-9, other'), `x-subject-token: ${REDACTED}, other`);
    assert.equal(redactText('X-Service-Token=tok-7'), `X-Service-Token=${REDACTED}`);
  });

  it('masks the credential of an Authorization header, not just its scheme', () => {
    assert.equal(redactText('Authorization: Bearer eyJhbGciOi.abc.def'), `Authorization: Bearer ${REDACTED}`);
    assert.equal(redactText('authorization: Basic YWRtaW46cGFzcw=='), `authorization: Basic ${REDACTED}`);
    assert.equal(redactText('Authorization: opaque-value'), `Authorization: ${REDACTED}`);
  });

  it('masks bare Fernet tokens anywhere', () => {
    assert.equal(redactText(`token ${FERNET} was revoked`), `token ${REDACTED} was revoked`);
    assert.equal(redactText(`/v3/auth/tokens?nocatalog&t=${FERNET}`), `/v3/auth/tokens?nocatalog&t=${REDACTED}`);
  });

  it('masks a secret in JSON carried inside a JSON string, at any depth', () => {
    const once = JSON.stringify({ error_message: JSON.stringify({ faultstring: 'x', password: 'deep-Secret-1' }) });
    assert.ok(!redactText(once).includes('deep-Secret-1'), redactText(once));
    const twice = JSON.stringify({ outer: JSON.stringify({ inner: JSON.stringify({ secret: 'deeper-Secret-2' }) }) });
    assert.ok(!redactText(twice).includes('deeper-Secret-2'), redactText(twice));
    // What is left is still the same JSON, with only the secret masked.
    const outer = JSON.parse(redactText(once)) as { error_message: string };
    const parsed = JSON.parse(outer.error_message) as unknown;
    assert.deepEqual(parsed, { faultstring: 'x', password: REDACTED });
  });

  it('leaves ordinary text unchanged', () => {
    const ordinary = [
      '',
      'Instance s-1 could not be found.',
      'the password policy requires 12 characters',
      '{"name": "web", "status": "ACTIVE", "password_expires_at": null, "secret_ref": 42}',
      '{"user": {"password": null, "options": {"ignore_password_expiry": true}}}',
      '{"token": {"methods": ["password"], "expires_at": "2030-01-01T00:00:00Z"}}',
      '{"message": "say \\"hi\\" to caf\\u00e9"}',
      'gAAAAA is too short to be a token',
      '<html><body><h1>502 Bad Gateway</h1></body></html>',
    ];
    for (const text of ordinary) assert.equal(redactText(text), text);
  });

  it('never leaks a password placed in a JSON body, whatever the secret and the JSON around it', () => {
    const secretArb = fc.oneof(
      fc.string({ minLength: 8, maxLength: 40 }),
      // Heavy on the characters JSON escapes and the patterns look for.
      fc.string({
        minLength: 8,
        maxLength: 40,
        unit: fc.constantFrom('"', '\\', ':', '{', '}', ',', ' ', 'a', 'p', '/'),
      }),
      fc.string({ minLength: 8, maxLength: 20, unit: 'grapheme' }),
    );
    const key = fc.constantFrom(
      'password',
      'secret',
      'adminPass',
      'original_password',
      'application_credential_secret',
    );
    const shape = fc.constantFrom('flat', 'keystone', 'array', 'pretty', 'embedded');
    const around = fc.string({ maxLength: 12, unit: fc.constantFrom('"', '\\', 'password', ':', ' ', 'x') });
    fc.assert(
      fc.property(secretArb, key, shape, around, around, (secret, k, s, before, after) => {
        const body = (value: string): string => {
          const member = { name: before, [k]: value, description: after };
          switch (s) {
            case 'flat':
              return JSON.stringify(member);
            case 'keystone':
              return JSON.stringify({ auth: { identity: { methods: ['password'], password: { user: member } } } });
            case 'array':
              return JSON.stringify({ items: [{ a: before }, member, [member]] });
            case 'pretty':
              return JSON.stringify({ server: member }, null, 2);
            case 'embedded':
              return JSON.stringify({ error_message: JSON.stringify({ faultstring: before, debuginfo: member }) });
          }
        };
        const skeleton = redactText(body('PLACEHOLDER'));
        const escaped = JSON.stringify(secret).slice(1, -1);
        // A secret that the surrounding JSON spells out anyway proves nothing either way.
        fc.pre(!skeleton.includes(secret) && !skeleton.includes(escaped));
        const out = redactText(body(secret));
        assert.ok(!out.includes(secret), out);
        assert.ok(!out.includes(escaped), out);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('redactValue', () => {
  it('masks secret members at any depth, in objects and arrays', () => {
    const input = {
      name: 'svc-account',
      auth: {
        identity: {
          methods: ['password', 'token'],
          password: { user: { name: 'admin', password: 'p1-secret' } },
          token: { id: 'tok-secret' },
        },
      },
      credentials: [{ application_credential_secret: 'ac-secret' }, { nested: [{ adminPass: 'admin-secret' }] }],
      headers: { 'X-Auth-Token': 'hdr-secret', accept: 'application/json' },
      original_password: 'old-secret',
      secret: 'plain-secret',
      token: 'string-token',
    };
    const out = redactValue(input);
    const text = JSON.stringify(out);
    for (const s of [
      'p1-secret',
      'tok-secret',
      'ac-secret',
      'admin-secret',
      'hdr-secret',
      'old-secret',
      'plain-secret',
      'string-token',
    ]) {
      assert.ok(!text.includes(s), `${s} leaked: ${text}`);
    }
    assert.deepEqual(out, {
      name: 'svc-account',
      auth: { identity: { methods: ['password', 'token'], password: REDACTED, token: { id: REDACTED } } },
      credentials: [{ application_credential_secret: REDACTED }, { nested: [{ adminPass: REDACTED }] }],
      headers: { 'X-Auth-Token': REDACTED, accept: 'application/json' },
      original_password: REDACTED,
      secret: REDACTED,
      token: REDACTED,
    });
  });

  it('keeps a token object that is not a credential, masking only inside it', () => {
    const out = redactValue({
      token: { expires_at: '2030-01-01T00:00:00Z', methods: ['password'], user: { password: 'x-secret' } },
    });
    assert.deepEqual(out, {
      token: { expires_at: '2030-01-01T00:00:00Z', methods: ['password'], user: { password: REDACTED } },
    });
  });

  it('redacts secrets inside string values too', () => {
    assert.deepEqual(redactValue({ line: 'X-Auth-Token: abc', list: [`t=${FERNET}`] }), {
      line: `X-Auth-Token: ${REDACTED}`,
      list: [`t=${REDACTED}`],
    });
  });

  it('passes scalars through', () => {
    assert.equal(redactValue(42), 42);
    assert.equal(redactValue(null), null);
    assert.equal(redactValue(undefined), undefined);
    assert.equal(redactValue(true), true);
    assert.equal(redactValue('hello'), 'hello');
  });

  it('never mutates its input and masks a password at any depth', () => {
    const path = fc.array(fc.constantFrom('a', 'b', 'items', 'user', 'auth', 'data'), { maxLength: 6 });
    fc.assert(
      fc.property(path, fc.string({ minLength: 8, maxLength: 30 }), fc.boolean(), (keys, secret, inArray) => {
        let value: unknown = { password: secret, keep: 'kept' };
        for (const k of keys.toReversed()) value = inArray ? { [k]: [value] } : { [k]: value };
        const before = structuredClone(value);
        const out = redactValue(value);
        assert.deepEqual(value, before);
        assert.ok(!JSON.stringify(out).includes(JSON.stringify(secret)), JSON.stringify(out));
        assert.ok(JSON.stringify(out).includes('"keep":"kept"'));
      }),
      { numRuns: 300 },
    );
  });

  it('does not share structure with its input', () => {
    const input = { a: { b: [{ c: 1 }] } };
    const out = redactValue(input) as { a: { b: { c: number }[] } };
    assert.notEqual(out, input);
    assert.notEqual(out.a, input.a);
    assert.notEqual(out.a.b, input.a.b);
    assert.deepEqual(out, input);
  });
});

describe('redactText: credentials in URLs', () => {
  it('masks the userinfo of any URL an upstream error quotes, and leaves the rest readable', () => {
    const text =
      'connect failed: mysql://root:hunter2@db.internal:3306/nova; see https://user@example.com/x and http://ok.example/';
    const out = redactText(text);
    assert.ok(!out.includes('hunter2') && !out.includes('root:') && !out.includes('user@'), out);
    assert.ok(out.includes('mysql://***@db.internal:3306/nova') && out.includes('http://ok.example/'), out);
  });
});
