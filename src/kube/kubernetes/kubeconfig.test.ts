import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse, stringify } from 'yaml';
import {
  KubeconfigError,
  resolveKubeconfig,
  SERVICE_ACCOUNT_TOKEN,
  type KubeconfigSource,
  type LoadingEnvironment,
} from './kubeconfig.ts';

const config = (current: string | undefined, ...names: string[]) =>
  stringify({
    apiVersion: 'v1',
    kind: 'Config',
    ...(current === undefined ? {} : { 'current-context': current }),
    clusters: names.map((n) => ({ name: n, cluster: { server: `https://${n}.example:6443` } })),
    users: names.map((n) => ({ name: n, user: { token: `token-${n}` } })),
    contexts: names.map((n) => ({ name: n, context: { cluster: n, user: n } })),
  });

function environment(files: Record<string, string>, env: Record<string, string> = {}): LoadingEnvironment {
  return {
    env,
    home: '/home/op',
    exists: (path) => path in files,
    read: (path) => {
      const text = files[path];
      if (text === undefined) throw new Error(`ENOENT ${path}`);
      return text;
    },
  };
}

interface Parsed {
  'current-context': string;
  clusters: { name: string; cluster: { server: string; 'certificate-authority'?: string } }[];
  users: { name: string; user: Record<string, string> }[];
}
const parsed = (source: KubeconfigSource): Parsed => {
  if (source.kind !== 'kubeconfig') assert.fail(`expected a kubeconfig, got ${source.kind}`);
  return parse(source.text) as Parsed;
};
const server = (doc: Parsed) =>
  doc.clusters.find((c) => c.name === doc['current-context'])?.cluster.server ?? 'no such cluster';

describe('resolveKubeconfig (kubectl loading rules)', () => {
  it('--kubeconfig wins over KUBECONFIG and ~/.kube/config', () => {
    const env = environment(
      { '/flag': config('a', 'a'), '/env': config('b', 'b'), '/home/op/.kube/config': config('c', 'c') },
      { KUBECONFIG: '/env' },
    );
    assert.equal(server(parsed(resolveKubeconfig({ kubeconfig: '/flag' }, env))), 'https://a.example:6443');
  });

  it('KUBECONFIG merges its files: the first to name a context keeps it, the first current-context wins', () => {
    const env = environment(
      {
        '/one': config(undefined, 'shared'),
        '/two': config('two', 'two', 'shared').replace('https://shared.example', 'https://shadowed.example'),
        '/three': config('three', 'three'),
      },
      { KUBECONFIG: '/one:/missing:/two:/three' },
    );
    const doc = parsed(resolveKubeconfig({}, env));
    assert.equal(doc['current-context'], 'two');
    assert.equal(doc.clusters.find((c) => c.name === 'shared')?.cluster.server, 'https://shared.example:6443');
    assert.deepEqual(doc.clusters.map((c) => c.name).sort(), ['shared', 'three', 'two']);
  });

  it('--context picks another context of the merged files; an unknown one names the flag', () => {
    const env = environment({ '/one': config('a', 'a'), '/two': config('b', 'b') }, { KUBECONFIG: '/one:/two' });
    assert.equal(server(parsed(resolveKubeconfig({ context: 'b' }, env))), 'https://b.example:6443');
    assert.throws(() => resolveKubeconfig({ context: 'nope' }, env), /--context "nope" is not a context of/);
  });

  it('~/.kube/config when neither flag nor KUBECONFIG is set; no current-context asks for --context', () => {
    const env = environment({ '/home/op/.kube/config': config(undefined, 'home') });
    assert.throws(() => resolveKubeconfig({}, env), /no current-context; give --context/);
    assert.equal(server(parsed(resolveKubeconfig({ context: 'home' }, env))), 'https://home.example:6443');
  });

  it('in a pod with no kubeconfig, the service account; nowhere at all, an error naming every way', () => {
    const pod = environment({ [SERVICE_ACCOUNT_TOKEN]: 'jwt' }, { KUBERNETES_SERVICE_HOST: '10.0.0.1' });
    assert.deepEqual(resolveKubeconfig({}, pod), { kind: 'in-cluster' });
    assert.throws(() => resolveKubeconfig({}, environment({})), KubeconfigError);
    assert.throws(() => resolveKubeconfig({}, environment({})), /--kubeconfig, set KUBECONFIG/);
    assert.throws(() => resolveKubeconfig({ kubeconfig: '/absent' }, pod), /--kubeconfig \/absent: no such file/);
  });

  it('--in-cluster is explicit and excludes the kubeconfig flags', () => {
    const env = environment({ '/home/op/.kube/config': config('a', 'a') });
    assert.deepEqual(resolveKubeconfig({ inCluster: true }, env), { kind: 'in-cluster' });
    assert.throws(() => resolveKubeconfig({ inCluster: true, context: 'a' }, env), /--in-cluster excludes/);
  });

  it('relative certificate paths are read relative to the file that names them', () => {
    const text = stringify({
      'current-context': 'x',
      clusters: [{ name: 'x', cluster: { server: 'https://x', 'certificate-authority': 'pki/ca.crt' } }],
      users: [{ name: 'x', user: { 'client-certificate': '/abs/c.crt', 'client-key': 'k.key' } }],
      contexts: [{ name: 'x', context: { cluster: 'x', user: 'x' } }],
    });
    const doc = parsed(
      resolveKubeconfig({}, environment({ '/etc/kube/conf': text }, { KUBECONFIG: '/etc/kube/conf' })),
    );
    assert.equal(doc.clusters[0]?.cluster['certificate-authority'], '/etc/kube/pki/ca.crt');
    const user = doc.users[0]?.user;
    assert.ok(user);
    assert.equal(user['client-certificate'], '/abs/c.crt');
    assert.equal(user['client-key'], '/etc/kube/k.key');
  });
});
