/** The controller runtime's public surface: what reconcilers and the CLI import. */
export type { IndexFunc, CacheListOptions } from './cache.ts';
export type { ControllerOptions, Mapper, WatchOptions } from './controller.ts';
export { Controller, controllerOwner } from './controller.ts';
export { healthHandlers, serveHealth, type HealthCheck, type HealthHandlers, type HealthServer } from './health.ts';
export { Informer, type InformerHandlers, type InformerOptions } from './informer.ts';
export { LeaderElector, type Lease, type LeaderElectionOptions } from './leader.ts';
export { createLogger, requestLogger, silentLogger, redactPaths } from './logger.ts';
export { ControllerBuilder, Manager, probeServesKind, type ManagerOptions, type ServesKind } from './manager.ts';
export { Instrumenter, RuntimeMetrics, subReconcilerBuckets } from './metrics.ts';
export {
  ClusterRegistry,
  DEFAULT_CLUSTERS_NAMESPACE,
  KUBECONFIG_KEY,
  KUBECONFIG_SECRET_LABEL,
  KubeconfigSecretProvider,
  NAMESPACES_KEY,
  readRegistration,
  type ClientFactory,
  type Cluster,
} from './multicluster.ts';
export * as predicates from './predicates.ts';
export type { ObjectEvent, Predicate } from './predicates.ts';
export { ManualScheduler, systemScheduler, type Scheduler } from './scheduler.ts';
export {
  MANAGEMENT_CLUSTER,
  requestKey,
  type Logger,
  type ReconcileContext,
  type Reconciler,
  type Request,
  type Result,
} from './types.ts';
export { WorkQueue, backoffDelay, defaultBackoff, type BackoffOptions } from './workqueue.ts';
