/** Security groups: create one on a network with its rules, edit the rules of one, list them live, delete. */
import { useState } from 'preact/hooks';
import type { NetworkV2Read } from '../../src/region/http/schemas/network.ts';
import {
  SecurityGroupV2Create,
  SecurityGroupV2Update,
  type SecurityGroupRuleV2,
  type SecurityGroupV2Read,
} from '../../src/region/http/schemas/security-group.ts';
import { Field, Options, ProblemNote, Section } from '../components.tsx';
import { useLive } from '../live.ts';
import { useScope } from '../context.ts';
import { networkColumn, ResourceTable, statusColumn } from '../resource-table.tsx';
import { shownPointers, useSubmit, type Submit } from '../form.ts';

/** A rule as the editor holds it: text as typed, turned into the API's shape on submit. */
interface RuleRow {
  readonly direction: string;
  readonly protocol: string;
  readonly port: string;
  readonly portMax: string;
  readonly prefix: string;
}

const NEW_RULE: RuleRow = { direction: 'ingress', protocol: 'tcp', port: '22', portMax: '', prefix: '0.0.0.0/0' };

const rowOf = (r: SecurityGroupRuleV2): RuleRow => ({
  direction: r.direction,
  protocol: r.protocol,
  port: r.port === undefined ? '' : String(r.port),
  portMax: r.portMax === undefined ? '' : String(r.portMax),
  prefix: r.prefix ?? '',
});

// The editor's text; the submit checks it against the schema before anything is sent (form.ts useSubmit).
const ruleOf = (row: RuleRow) => ({
  direction: row.direction as SecurityGroupRuleV2['direction'],
  protocol: row.protocol as SecurityGroupRuleV2['protocol'],
  ...(row.port === '' ? {} : { port: Number(row.port) }),
  ...(row.portMax === '' ? {} : { portMax: Number(row.portMax) }),
  ...(row.prefix === '' ? {} : { prefix: row.prefix }),
});

export function SecurityGroupsView() {
  const { securitygroups: groups, networks } = useLive('securitygroups', 'networks');
  const [editing, setEditing] = useState<string | undefined>(undefined);
  const edited = groups.value?.find((g) => g.metadata.id === editing);
  return (
    <>
      <h1>Security groups</h1>
      <CreateSecurityGroup networks={networks.value ?? []} onCreated={groups.refresh} />
      <Section title="Your security groups">
        <ResourceTable
          what="security groups"
          listed={groups}
          columns={[
            statusColumn,
            networkColumn(networks.value ?? []),
            {
              title: 'Rules',
              cell: (g) => (
                <ul>
                  {g.spec.rules.map((r, i) => (
                    <li key={i}>
                      {r.direction} {r.protocol} {r.port === undefined ? 'all ports' : r.port}
                      {r.portMax === undefined ? '' : `-${String(r.portMax)}`} {r.prefix ?? '0.0.0.0/0'}
                    </li>
                  ))}
                </ul>
              ),
            },
          ]}
          path={(g) => `/api/v2/securitygroups/${g.metadata.id}`}
          href={(g) => `/security-groups/${g.metadata.id}`}
          actions={(g) => (
            <button type="button" onClick={() => setEditing(g.metadata.id)}>
              Edit rules of {g.metadata.name}
            </button>
          )}
        />
      </Section>
      {edited === undefined ? null : (
        <EditRules
          key={edited.metadata.id}
          group={edited}
          onDone={() => {
            setEditing(undefined);
            groups.refresh();
          }}
        />
      )}
    </>
  );
}

function CreateSecurityGroup({ networks, onCreated }: { networks: readonly NetworkV2Read[]; onCreated: () => void }) {
  const { api } = useScope();
  const [name, setName] = useState('');
  const [networkID, setNetworkID] = useState('');
  const [rules, setRules] = useState<RuleRow[]>([NEW_RULE]);
  const network = networkID === '' ? (networks[0]?.metadata.id ?? '') : networkID;
  const submit = useSubmit(SecurityGroupV2Create);
  return (
    <Section title="Create a security group">
      <form
        onSubmit={(event) => {
          event.preventDefault();
          const body = { metadata: { name }, spec: { networkId: network, rules: rules.map(ruleOf) } };
          void submit
            .run(body, (b) => api('POST', '/api/v2/securitygroups', b))
            .then((ok) => {
              if (!ok) return;
              setName('');
              setRules([NEW_RULE]);
              onCreated();
            });
        }}
      >
        <Field label="Name" pointer="/metadata/name" errors={submit.errors}>
          {(p) => <input {...p} value={name} onInput={(e) => setName(e.currentTarget.value)} />}
        </Field>
        <Field label="Network" pointer="/spec/networkId" errors={submit.errors}>
          {(p) => (
            <select {...p} value={network} onChange={(e) => setNetworkID(e.currentTarget.value)}>
              <Options items={networks} />
            </select>
          )}
        </Field>
        <RuleEditor rules={rules} onChange={setRules} submit={submit} idPrefix="new" />
        <ProblemNote
          problem={submit.problem}
          shown={shownPointers('/metadata/name', '/spec/networkId', '/spec/rules')}
        />
        <button type="submit" disabled={submit.busy || network === ''}>
          Create security group
        </button>
      </form>
    </Section>
  );
}

function EditRules({ group, onDone }: { group: SecurityGroupV2Read; onDone: () => void }) {
  const { api } = useScope();
  const [rules, setRules] = useState<RuleRow[]>(group.spec.rules.map(rowOf));
  const submit = useSubmit(SecurityGroupV2Update);
  return (
    <Section title={`Rules of ${group.metadata.name}`}>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          const body = { metadata: { name: group.metadata.name }, spec: { rules: rules.map(ruleOf) } };
          void submit
            .run(body, (b) => api('PUT', `/api/v2/securitygroups/${group.metadata.id}`, b))
            .then((ok) => {
              if (ok) onDone();
            });
        }}
      >
        <RuleEditor rules={rules} onChange={setRules} submit={submit} idPrefix="edit" />
        <ProblemNote problem={submit.problem} shown={shownPointers('/spec/rules')} />
        <button type="submit" disabled={submit.busy}>
          Save rules
        </button>{' '}
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </form>
    </Section>
  );
}

/** One row of fields a rule, each field showing the violation at its own pointer (`/spec/rules/2/port`). */
function RuleEditor(props: {
  rules: RuleRow[];
  onChange: (rules: RuleRow[]) => void;
  submit: Submit;
  idPrefix: string;
}) {
  const { rules, onChange, submit, idPrefix } = props;
  const set = (i: number, change: Partial<RuleRow>) =>
    onChange(rules.map((r, j) => (j === i ? { ...r, ...change } : r)));
  return (
    <fieldset>
      <legend>Rules</legend>
      {rules.map((rule, i) => {
        const at = (field: string) => ({
          pointer: `/spec/rules/${String(i)}/${field}`,
          id: `${idPrefix}-rule-${String(i)}-${field}`,
        });
        return (
          <div class="rule" key={i} role="group" aria-label={`Rule ${String(i + 1)}`}>
            <Field label="Direction" {...at('direction')} errors={submit.errors}>
              {(p) => (
                <select {...p} value={rule.direction} onChange={(e) => set(i, { direction: e.currentTarget.value })}>
                  <option value="ingress">ingress</option>
                  <option value="egress">egress</option>
                </select>
              )}
            </Field>
            <Field label="Protocol" {...at('protocol')} errors={submit.errors}>
              {(p) => (
                <select {...p} value={rule.protocol} onChange={(e) => set(i, { protocol: e.currentTarget.value })}>
                  {['any', 'icmp', 'tcp', 'udp', 'vrrp'].map((v) => (
                    <option key={v} value={v}>
                      {v}
                    </option>
                  ))}
                </select>
              )}
            </Field>
            <Field label="Port" {...at('port')} errors={submit.errors}>
              {(p) => (
                <input
                  {...p}
                  inputMode="numeric"
                  value={rule.port}
                  onInput={(e) => set(i, { port: e.currentTarget.value })}
                />
              )}
            </Field>
            <Field label="Last port" {...at('portMax')} errors={submit.errors}>
              {(p) => (
                <input
                  {...p}
                  inputMode="numeric"
                  value={rule.portMax}
                  onInput={(e) => set(i, { portMax: e.currentTarget.value })}
                />
              )}
            </Field>
            <Field label="Remote prefix" {...at('prefix')} errors={submit.errors}>
              {(p) => <input {...p} value={rule.prefix} onInput={(e) => set(i, { prefix: e.currentTarget.value })} />}
            </Field>
            <button type="button" onClick={() => onChange(rules.filter((_, j) => j !== i))}>
              Remove rule {i + 1}
            </button>
          </div>
        );
      })}
      <button type="button" onClick={() => onChange([...rules, NEW_RULE])}>
        Add a rule
      </button>
    </fieldset>
  );
}
