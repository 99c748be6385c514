/** Building the Kubernetes backend from kubeconfig text or the pod's service account. */
import { KubeConfig } from '@kubernetes/client-node';
import { userAgent } from '../../util/version.ts';
import { KubernetesClient } from './client.ts';
import { kubeConfigTransport, type TransportOptions } from './transport.ts';
import { defined } from '../../util/defined.ts';

interface KubeClientSource extends TransportOptions {
  /** A kubeconfig's YAML text; its current context picks the cluster, the user and the default namespace. */
  readonly kubeconfig?: string;
  /**
   * Use the pod's service account: the API server from KUBERNETES_SERVICE_HOST/PORT (client-node reads them), the
   * token (re-read every minute, so projected tokens rotate) and CA under /var/run/secrets/kubernetes.io/serviceaccount.
   */
  readonly inCluster?: boolean;
  /** Prepended to the service-account directory: a chroot or a test's stand-in for the pod's files. */
  readonly serviceAccountPathPrefix?: string;
}

export function kubeConfigFrom(source: KubeClientSource): KubeConfig {
  const kc = new KubeConfig();
  if (source.inCluster === true) kc.loadFromCluster(source.serviceAccountPathPrefix);
  else if (source.kubeconfig !== undefined) kc.loadFromString(source.kubeconfig);
  else throw new Error('kubeClientFrom: give kubeconfig text or inCluster: true');
  return kc;
}

export function kubeClientFrom(source: KubeClientSource): KubernetesClient {
  const kc = kubeConfigFrom(source);
  const context = kc.getContextObject(kc.getCurrentContext());
  const transportOptions = {
    userAgent: source.userAgent ?? userAgent(),
    ...defined({ requestTimeoutMs: source.requestTimeoutMs }),
  };
  return new KubernetesClient(kubeConfigTransport(kc, transportOptions), {
    ...(context?.namespace !== undefined ? { defaultNamespace: context.namespace } : {}),
  });
}
