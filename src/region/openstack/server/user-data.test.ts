import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { mergeUserData, userDataContentType, type UserDataPart } from './user-data.ts';

const text = (s: string) => new Uint8Array(Buffer.from(s, 'latin1'));
const str = (b: Uint8Array) => Buffer.from(b).toString('latin1');
const MANAGED: UserDataPart = {
  contentType: 'text/cloud-config',
  fileName: 'managed',
  content: '#cloud-config\na: 1\n',
};

/** An independent reading of the merged document: its boundary and each part's headers and body. */
function parts(doc: string): { headers: string; body: string }[] {
  const m = /^Content-Type: multipart\/mixed; boundary="([^"]+)"\r\nMIME-Version: 1\.0\r\n\r\n/.exec(doc);
  assert.ok(m?.[1], doc);
  const boundary = m[1];
  const rest = doc.slice(m[0].length);
  assert.ok(rest.startsWith(`--${boundary}\r\n`) && rest.endsWith(`\r\n--${boundary}--\r\n`));
  const inner = rest.slice(`--${boundary}\r\n`.length, -`\r\n--${boundary}--\r\n`.length);
  return inner.split(`\r\n--${boundary}\r\n`).map((p) => {
    const at = p.indexOf('\r\n\r\n');
    return { headers: p.slice(0, at), body: p.slice(at + 4) };
  });
}

const merged = (user: string | undefined, managed: readonly UserDataPart[] = [MANAGED]): string => {
  const r = mergeUserData(user === undefined ? undefined : text(user), managed);
  assert.ok(r.ok, r.ok ? '' : r.reason);
  return str(r.userData);
};

describe('mergeUserData', () => {
  it('without managed parts the user data passes through untouched', () => {
    assert.equal(merged('#!/bin/sh\necho hi\n', []), '#!/bin/sh\necho hi\n');
    assert.equal(merged(undefined, []), '');
  });

  it('without user data a single managed part is sent as itself', () => {
    assert.equal(merged(undefined), MANAGED.content);
    assert.equal(merged(''), MANAGED.content);
  });

  it('a single payload becomes the first part, typed from its first line, byte for byte', () => {
    const user = '#cloud-config\nruncmd:\n  - [touch, /tmp/x]\n';
    const [first, second, ...more] = parts(merged(user));
    assert.deepEqual(first, { headers: 'Content-Type: text/cloud-config', body: user });
    assert.deepEqual(second, {
      headers: 'Content-Type: text/cloud-config\r\nContent-Disposition: attachment; filename="managed"',
      body: MANAGED.content,
    });
    assert.deepEqual(more, []);
  });

  it('keeps a multipart document’s parts and headers, whatever the header order and line endings', () => {
    const crlf =
      'MIME-Version: 1.0\r\nContent-Type: multipart/mixed;\r\n boundary="XYZ"\r\n\r\npreamble\r\n' +
      '--XYZ\r\nContent-Type: text/x-shellscript\r\n\r\n#!/bin/sh\r\necho a\r\n' +
      '--XYZ\r\nContent-Type: text/cloud-config\r\nX-Extra: kept\r\n\r\n#cloud-config\r\n\r\n--XYZ--\r\nepilogue';
    const got = parts(merged(crlf));
    assert.deepEqual(got, [
      { headers: 'Content-Type: text/x-shellscript', body: '#!/bin/sh\r\necho a' },
      { headers: 'Content-Type: text/cloud-config\r\nX-Extra: kept', body: '#cloud-config\r\n' },
      {
        headers: 'Content-Type: text/cloud-config\r\nContent-Disposition: attachment; filename="managed"',
        body: MANAGED.content,
      },
    ]);
    const lf =
      'Content-Type: multipart/mixed; boundary=B\n\n--B\nContent-Type: text/x-shellscript\n\n#!/bin/sh\n\n--B--\n';
    assert.deepEqual(parts(merged(lf))[0], { headers: 'Content-Type: text/x-shellscript', body: '#!/bin/sh\n' });
  });

  it('is deterministic, and preserves non-UTF-8 bytes', () => {
    const user = `#!/bin/sh\n${String.fromCharCode(...Array.from({ length: 128 }, (_, i) => i + 128))}\n`;
    assert.equal(merged(user), merged(user));
    assert.equal(parts(merged(user))[0]?.body, user);
  });

  it('round-trips any shell payload as its first part', () => {
    fc.assert(
      fc.property(fc.string(), (body) => {
        const user = `#!/bin/sh\n${body}`;
        const got = parts(merged(user));
        assert.equal(got.length, 2);
        assert.equal(got[0]?.body, user);
      }),
    );
  });

  it('refuses what cannot be combined, with a reason', () => {
    const refused = (user: Uint8Array) => {
      const r = mergeUserData(user, [MANAGED]);
      assert.ok(!r.ok);
      return r.reason;
    };
    assert.match(refused(new Uint8Array([0x1f, 0x8b, 8, 0])), /gzip/);
    assert.match(refused(text('echo no header\n')), /cloud-init format/);
    assert.match(refused(text('Content-Type: multipart/mixed\n\n--B\n\nx\n--B--\n')), /no boundary/);
    assert.match(refused(text('Content-Type: multipart/mixed; boundary=B\n\n--B\n\nunterminated\n')), /does not parse/);
  });
});

describe('userDataContentType', () => {
  it('recognises cloud-init’s formats, the longest prefix first', () => {
    assert.equal(userDataContentType('#cloud-config\n'), 'text/cloud-config');
    assert.equal(userDataContentType('#cloud-config-archive\n- a'), 'text/cloud-config-archive');
    assert.equal(userDataContentType('## template: jinja\n#cloud-config'), 'text/jinja2');
    assert.equal(userDataContentType('#!/bin/bash\n'), 'text/x-shellscript');
    assert.equal(userDataContentType('#cloud-boothook\n'), 'text/cloud-boothook');
    assert.equal(userDataContentType('#include\nhttp://x'), 'text/x-include-url');
    assert.equal(userDataContentType('#include-once\nhttp://x'), 'text/x-include-once-url');
    assert.equal(userDataContentType('#part-handler\n'), 'text/part-handler');
    assert.equal(userDataContentType('  #cloud-config  \n'), 'text/cloud-config');
    assert.equal(userDataContentType('hello\n'), undefined);
  });
});
