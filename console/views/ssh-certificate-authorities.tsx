/** SSH certificate authorities: register a CA's public key for the project, list, delete. */
import { useState } from 'preact/hooks';
import { SSHCertificateAuthorityV2Create } from '../../src/region/http/schemas/inventory.ts';
import { query } from '../api.ts';
import { DeleteButton, Empty, Field, ProblemNote, Section, usePoll } from '../components.tsx';
import { useScope } from '../context.ts';
import { shownPointers, useSubmit } from '../form.ts';

export function SshCertificateAuthoritiesView() {
  const { api, organizationID, projectID } = useScope();
  const scope = query({ organizationID, projectID });
  const path = '/api/v2/sshcertificateauthorities';
  const cas = usePoll(() => api('GET', `${path}${scope}`), [api, scope]);
  const [name, setName] = useState('');
  const [publicKey, setPublicKey] = useState('');
  const submit = useSubmit(SSHCertificateAuthorityV2Create);
  return (
    <>
      <h1>SSH certificate authorities</h1>
      <Section title="Register a CA">
        <form
          onSubmit={(event) => {
            event.preventDefault();
            const body = {
              metadata: { name },
              spec: { publicKey: publicKey.trim(), organizationId: organizationID, projectId: projectID ?? '' },
            };
            void submit
              .run(body, (b) => api('POST', path, b))
              .then((ok) => {
                if (!ok) return;
                setName('');
                setPublicKey('');
                cas.refresh();
              });
          }}
        >
          <Field label="Name" pointer="/metadata/name" errors={submit.errors}>
            {(p) => <input {...p} value={name} onInput={(e) => setName(e.currentTarget.value)} />}
          </Field>
          <Field
            label="Public key"
            pointer="/spec/publicKey"
            errors={submit.errors}
            hint="One line, e.g. ssh-ed25519 AAAA… ca"
          >
            {(p) => <textarea {...p} rows={3} value={publicKey} onInput={(e) => setPublicKey(e.currentTarget.value)} />}
          </Field>
          <ProblemNote problem={submit.problem} shown={shownPointers('/metadata/name', '/spec/publicKey')} />
          <button type="submit" disabled={submit.busy}>
            Register CA
          </button>
        </form>
      </Section>
      <Section title="Your CAs">
        <ProblemNote problem={cas.problem} />
        {cas.value?.length === 0 ? <Empty what="SSH certificate authorities" /> : null}
        <ul>
          {(cas.value ?? []).map((c) => (
            <li key={c.metadata.id}>
              {c.metadata.name} <code>{c.spec.publicKey.slice(0, 40)}…</code>{' '}
              <DeleteButton
                name={c.metadata.name}
                onDelete={() => api('DELETE', `${path}/${c.metadata.id}`).then(cas.refresh)}
              />
            </li>
          ))}
        </ul>
      </Section>
    </>
  );
}
