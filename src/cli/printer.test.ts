import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PrinterColumn } from '../kube/crd.ts';
import type { KubeObject } from '../kube/object.ts';
import { builtin, type ResourceType } from '../kube/resource-type.ts';
import {
  customColumns,
  humanDuration,
  jsonpathTemplate,
  objectName,
  select,
  table,
  withoutManagedFields,
} from './printer.ts';

const NOW = Date.parse('2026-12-01T12:00:00Z');
const server = (name: string, ready: string | undefined, extra: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'region.unikorn-cloud.org/v1alpha1',
  kind: 'Server',
  metadata: {
    name,
    namespace: 'unikorn-region',
    creationTimestamp: '2026-12-01T11:57:30Z',
    labels: { 'unikorn-cloud.org/name': `${name}-label` },
    managedFields: [
      { manager: 'openregion', operation: 'Apply', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: {} },
    ],
  },
  spec: { flavorID: 'f1' },
  status: {
    privateIP: '10.0.0.5',
    ...(ready === undefined ? {} : { conditions: [{ type: 'Available', status: 'True', reason: ready }] }),
  },
  ...extra,
});
const serverType: ResourceType = {
  group: 'region.unikorn-cloud.org',
  version: 'v1alpha1',
  kind: 'Server',
  plural: 'servers',
  namespaced: true,
};
const columns: PrinterColumn[] = [
  { name: 'display name', type: 'string', jsonPath: '.metadata.labels.unikorn-cloud\\.org/name' },
  { name: 'status', type: 'string', jsonPath: '.status.conditions[?(@.type=="Available")].reason' },
  { name: 'private ip', type: 'string', jsonPath: '.status.privateIP', priority: 1 },
  { name: 'age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
];

describe('kubectl-style printing', () => {
  it('words ages as kubectl does', () => {
    const cases: [number, string][] = [
      [-5_000, '<invalid>'],
      [0, '0s'],
      [119_000, '119s'],
      [150_000, '2m30s'],
      [300_000, '5m'],
      [45 * 60_000, '45m'],
      [(3 * 60 + 20) * 60_000, '3h20m'],
      [20 * 3_600_000, '20h'],
      [(3 * 24 + 4) * 3_600_000, '3d4h'],
      [21 * 86_400_000, '21d'],
      [(2 * 365 + 30) * 86_400_000, '2y30d'],
      [9 * 365 * 86_400_000, '9y'],
    ];
    assert.deepEqual(
      cases.map(([ms]) => humanDuration(ms)),
      cases.map(([, words]) => words),
    );
  });

  it('selects with filters and escaped dots, and selects nothing for an absent field', () => {
    const o = server('web', 'Provisioned');
    assert.deepEqual(select(o, '.status.conditions[?(@.type=="Available")].reason'), ['Provisioned']);
    assert.deepEqual(select(o, ".status.conditions[?(@.type=='Available')].status"), ['True']);
    assert.deepEqual(select(o, '.metadata.labels.unikorn-cloud\\.org/name'), ['web-label']);
    assert.deepEqual(select(o, '.status.publicIP'), []);
    assert.deepEqual(select({ items: [o, o] }, '.items[*].metadata.name'), ['web', 'web']);
  });

  it('prints the printer columns, wide ones only with -o wide, nothing for what is absent', () => {
    const items = [server('web', 'Provisioned'), server('db-primary', undefined)];
    assert.equal(
      table(items, { columns, wide: false, withNamespace: true, now: NOW }),
      [
        'NAMESPACE        NAME         DISPLAY NAME       STATUS        AGE',
        'unikorn-region   web          web-label          Provisioned   2m30s',
        'unikorn-region   db-primary   db-primary-label                 2m30s',
        '',
      ].join('\n'),
    );
    assert.equal(
      table(items.slice(0, 1), { columns, wide: true, withNamespace: false, now: NOW }),
      [
        'NAME   DISPLAY NAME   STATUS        PRIVATE IP   AGE',
        'web    web-label      Provisioned   10.0.0.5     2m30s',
        '',
      ].join('\n'),
    );
  });

  it('prints custom columns and jsonpath templates with range', () => {
    const items = [server('web', 'Provisioned'), server('db', undefined)];
    assert.equal(
      customColumns(items, 'NAME:.metadata.name,IP:.status.privateIP,PUBLIC:.status.publicIP'),
      ['NAME   IP         PUBLIC', 'web    10.0.0.5   <none>', 'db     10.0.0.5   <none>', ''].join('\n'),
    );
    const list = { kind: 'List', items };
    assert.equal(jsonpathTemplate(list, '{.items[*].metadata.name}'), 'web db');
    assert.equal(
      jsonpathTemplate(list, '{range .items[*]}{.metadata.name}{"\\t"}{.status.privateIP}{"\\n"}{end}'),
      'web\t10.0.0.5\ndb\t10.0.0.5\n',
    );
    assert.equal(jsonpathTemplate(items[0], 'name={.metadata.name}'), 'name=web');
    assert.throws(() => jsonpathTemplate(list, '{range .items[*]}{.metadata.name}'), /range\} without \{end/);
  });

  it('names objects and hides managedFields as kubectl does', () => {
    assert.equal(objectName(serverType, 'web'), 'server.region.unikorn-cloud.org/web');
    assert.equal(objectName(builtin.secret, 'creds'), 'secret/creds');
    const o = server('web', undefined);
    assert.equal(withoutManagedFields(o).metadata.managedFields, undefined);
    assert.equal(withoutManagedFields(o).metadata.name, 'web');
  });
});
