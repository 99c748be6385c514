/**
 * The monitoring bundle (deploy/monitoring/) names only series openregion exposes: every metric in an alert rule or a
 * dashboard query is registered by the code, so a rename cannot leave an alert that never fires. (promtool checks
 * the rules' syntax and behaviour in CI: scripts/monitoring.sh.)
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { openstackRequestMetrics } from '../openstack/metrics.ts';
import { rowCounter } from '../region/controllers/metrics.ts';
import { apiFixture } from '../region/http/testing/api.ts';
import { RuntimeMetrics } from '../runtime/metrics.ts';
import { ManualClock } from '../util/clock.ts';

const bundle = (file: string) => readFileSync(new URL(`../../deploy/monitoring/${file}`, import.meta.url), 'utf8');

/** Every series name openregion registers, histograms with their _bucket, _sum and _count. */
async function exposedNames(): Promise<Set<string>> {
  const metrics = new RuntimeMetrics();
  metrics.buildInfo('0.0.0', process.version);
  metrics.countObjects(() => [], new ManualClock());
  openstackRequestMetrics(metrics.registry);
  rowCounter(metrics.registry);
  const api = await apiFixture(undefined, { metrics: metrics.registry });
  await api.close();
  const names = new Set<string>();
  for (const metric of await metrics.registry.getMetricsAsJSON()) {
    names.add(metric.name);
    if (String(metric.type) === 'histogram')
      for (const suffix of ['_bucket', '_sum', '_count']) names.add(`${metric.name}${suffix}`);
  }
  return names;
}

const SERIES = /\b((?:openregion|http|workqueue|controller_runtime)_[a-z_]+)\b/g;

describe('the monitoring bundle', () => {
  it('alerts and dashboard query only series the code registers', async () => {
    const names = await exposedNames();
    const rules = parse(bundle('alerts.yaml')) as { groups: { rules: { alert: string; expr: string }[] }[] };
    const dashboard = JSON.parse(bundle('dashboard.json')) as { panels: { targets: { expr: string }[] }[] };
    const exprs = [
      ...rules.groups.flatMap((g) => g.rules.map((r) => r.expr)),
      ...dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr)),
    ];
    assert.ok(exprs.length >= 15, 'five alerts and a dozen panels');
    const used = new Set(exprs.flatMap((expr) => [...expr.matchAll(SERIES)].map((m) => m[1] ?? '')));
    assert.ok(used.has('openregion_stuck_deletions') && used.has('http_requests_total'));
    assert.deepEqual(
      [...used].filter((name) => !names.has(name)),
      [],
      'series nothing registers',
    );
  });

  it('has the five alerts the issue names', () => {
    const rules = parse(bundle('alerts.yaml')) as { groups: { rules: { alert: string }[] }[] };
    assert.deepEqual(rules.groups.flatMap((g) => g.rules.map((r) => r.alert)).sort(), [
      'OpenregionAPIErrorRatioHigh',
      'OpenregionKeystoneOrdersNotReady',
      'OpenregionOpenStackErrorRateHigh',
      'OpenregionStuckDeletions',
      'OpenregionWorkQueueBacklog',
    ]);
  });
});
