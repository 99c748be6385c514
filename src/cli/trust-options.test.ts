import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { serveCommand } from './serve.ts';
import type { TrustFlags } from './trust-options.ts';
import { upCommand } from './up.ts';
import { flagsOf, invalidArgument } from './testing/flags.ts';

const parser =
  (command: typeof serveCommand) =>
  (...argv: string[]) =>
    flagsOf<TrustFlags>(command, ...argv);

describe('trust flags', () => {
  for (const command of [serveCommand, upCommand]) {
    const parsed = parser(command);
    it(`${command().name()}: --image-source-allow repeats, takes prefixes and addresses, refuses the rest`, () => {
      assert.equal(parsed().imageSourceAllow, undefined);
      assert.deepEqual(
        parsed('--image-source-allow', '10.1.0.0/16', '--image-source-allow', 'fd00::1').imageSourceAllow,
        ['10.1.0.0/16', 'fd00::1'],
      );
      for (const bad of ['mirror.example', '10.0.0.0/33', '']) {
        assert.throws(() => parsed('--image-source-allow', bad), invalidArgument, bad);
      }
    });
  }

  it('serve: --public-url takes an http(s) URL without credentials', () => {
    const parsed = parser(serveCommand);
    assert.equal(parsed('--public-url', 'https://region.example.com/').publicUrl, 'https://region.example.com');
    for (const bad of ['region.example.com', 'ftp://x.example', 'https://u:p@x.example']) {
      assert.throws(() => parsed('--public-url', bad), invalidArgument, bad);
    }
  });
});
