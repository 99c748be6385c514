import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { redactSecretsIn, redactSecretText } from './secret-text.ts';

describe('redactSecretText', () => {
  it("masks a URL's credentials, bearer and basic credentials, and secret key=value pairs; keeps the rest", () => {
    const out = redactSecretText(
      'db mysql://root:hunter2@db.internal:3306/nova failed; GET https://x.example/?a=1&token=abc123&b=2 ' +
        'Authorization: Bearer eyJhbGciOiJFUzI1NiJ9.e30.sig password=pa55 secret: "s e c" ok http://plain.example/',
    );
    for (const secret of ['hunter2', 'root:', 'abc123', 'eyJhbGciOiJFUzI1NiJ9', 'pa55', 's e c']) {
      assert.ok(!out.includes(secret), `${secret} in ${out}`);
    }
    for (const kept of ['mysql://***@db.internal:3306/nova', 'a=1', 'b=2', 'http://plain.example/']) {
      assert.ok(out.includes(kept), `${kept} not in ${out}`);
    }
  });
});

describe('redactSecretsIn', () => {
  it('walks objects and arrays, and keeps an Error an Error of its class with its text redacted', () => {
    const error = new TypeError('connect mysql://u:pw@h failed', { cause: new Error('token=t0k') });
    const out = redactSecretsIn({ a: ['x mysql://u:pw@h'], error, n: 1 }) as {
      a: string[];
      error: TypeError;
      n: number;
    };
    assert.deepEqual(out.a, ['x mysql://***@h']);
    assert.ok(out.error instanceof TypeError);
    assert.equal(out.error.message, 'connect mysql://***@h failed');
    assert.ok(!String(out.error.stack).includes('pw@'));
    assert.equal((out.error.cause as Error).message, 'token=***');
    assert.equal(error.message, 'connect mysql://u:pw@h failed', 'the original is untouched');
    assert.equal(out.n, 1);
  });
});
