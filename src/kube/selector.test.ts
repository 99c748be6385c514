import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KubeBadRequestError } from './errors.ts';
import { matchesFields, matchesLabels, parseFieldSelector, parseLabelSelector } from './selector.ts';

const labels = { app: 'web', tier: 'front', 'example.com/zone': 'a', n: '7' };

function sel(text: string, l: Record<string, string> | undefined = labels): boolean {
  return matchesLabels(parseLabelSelector(text), l);
}

describe('label selectors', () => {
  it('matches everything when empty', () => {
    assert.equal(sel(''), true);
    assert.equal(sel('  ', undefined), true);
  });

  it('handles equality in its three spellings', () => {
    assert.equal(sel('app=web'), true);
    assert.equal(sel('app==web'), true);
    assert.equal(sel('app = web'), true);
    assert.equal(sel('app=db'), false);
    assert.equal(sel('app!=db'), true);
    assert.equal(sel('app!=web'), false);
  });

  it('lets != and notin match an absent key, as Kubernetes does', () => {
    assert.equal(sel('missing!=x'), true);
    assert.equal(sel('missing notin (x)'), true);
    assert.equal(sel('missing in (x)'), false);
  });

  it('handles set-based requirements', () => {
    assert.equal(sel('tier in (front, back)'), true);
    assert.equal(sel('tier in (back)'), false);
    assert.equal(sel('tier notin (back,middle)'), true);
    assert.equal(sel('tier notin (front)'), false);
    assert.equal(sel('app,!missing'), true);
    assert.equal(sel('!app'), false);
    assert.equal(sel('example.com/zone in (a,b),app=web'), true);
  });

  it('does not read a key that starts with "in" as the operator', () => {
    assert.equal(sel('index', { index: '1' }), true);
    assert.equal(sel('index in (1)', { index: '1' }), true);
  });

  it('compares integers with > and <', () => {
    assert.equal(sel('n>5'), true);
    assert.equal(sel('n<5'), false);
    assert.equal(sel('app>5'), false);
  });

  it('rejects malformed selectors and invalid keys or values', () => {
    for (const bad of ['app=', 'app=web,', 'app in (a', '-x=1', 'a=b c', 'n>x', 'app=web!', `k=${'v'.repeat(64)}`]) {
      if (bad === 'app=') {
        // An empty value is allowed, as in Kubernetes.
        assert.equal(sel(bad, { app: '' }), true);
        continue;
      }
      assert.throws(() => parseLabelSelector(bad), KubeBadRequestError, bad);
    }
  });
});

describe('field selectors', () => {
  const obj = { metadata: { name: 'a,b', namespace: 'ns' }, type: 'Opaque', spec: { replicas: 3 } };

  it('matches = == and != on dotted paths', () => {
    assert.equal(matchesFields(parseFieldSelector('metadata.namespace=ns'), obj), true);
    assert.equal(matchesFields(parseFieldSelector('metadata.namespace==ns,type!=x'), obj), true);
    assert.equal(matchesFields(parseFieldSelector('metadata.namespace!=ns'), obj), false);
    assert.equal(matchesFields(parseFieldSelector('spec.replicas=3'), obj), true);
  });

  it('unescapes values', () => {
    assert.equal(matchesFields(parseFieldSelector('metadata.name=a\\,b'), obj), true);
  });

  it('rejects a requirement without an operator', () => {
    assert.throws(() => parseFieldSelector('metadata.name'), KubeBadRequestError);
  });
});
