import { useState } from 'react';
import { api } from '../../lib/api.ts';
import { useCan } from '../../lib/role.ts';
import type { FormerMember, KeyPair, ListPage } from '../../lib/types.ts';
import { useAsync } from '../../lib/use-async.ts';
import { AsyncView } from '../../components/async-view.tsx';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { GraceDialog } from '../../components/grace-dialog.tsx';
import { PageHeader } from '../../components/page-header.tsx';
import { SecretDialog } from '../../components/secret-dialog.tsx';
import { EmptyState } from '../../components/empty-state.tsx';
import { GenerateKeyDialog } from './generate-key-dialog.tsx';
import { KeysTable } from './keys-table.tsx';

type Open =
  null | 'generate' | { rotate: KeyPair } | { revoke: KeyPair } | { shown: KeyPair; rotated: boolean };

/** Each key pair a former member saw and that still works, with who saw it (API.md 12.4). */
function useSeenByFormerMembers() {
  const { state, reload } = useAsync(
    () => api<ListPage<FormerMember>>('GET', '/former-members').catch(() => null),
    [],
  );
  const seen = new Map<string, string[]>();
  for (const f of state.data?.items ?? []) {
    for (const c of f.exposed_credentials) {
      if (c.type === 'api_key') seen.set(c.id, [...(seen.get(c.id) ?? []), f.email]);
    }
  }
  return { seen, reload };
}

export function KeysPage() {
  const keys = useAsync(() => api<ListPage<KeyPair>>('GET', '/api-keys?limit=200'), []);
  const former = useSeenByFormerMembers();
  const { state } = keys;
  const reload = (quiet?: boolean) => {
    keys.reload(quiet);
    former.reload(true);
  };
  const [open, setOpen] = useState<Open>(null);
  const canWrite = useCan('developer');
  const close = () => setOpen(null);

  return (
    <section aria-labelledby="section-title">
      <PageHeader
        title="Credentials"
        guide="api-keys"
        description="A key pair is a secret key for your server and a publishable key, read-only, safe for browsers."
        actions={
          canWrite && (
            <button type="button" className="btn btn-primary" onClick={() => setOpen('generate')}>
              Generate key pair
            </button>
          )
        }
      />
      <div className="card">
        <AsyncView state={state} onRetry={() => reload()} label="API keys">
          {(page) =>
            page.items.length === 0 ? (
              <EmptyState title="No API keys yet.">
                Generate a key pair to call the public API directly.
              </EmptyState>
            ) : (
              <KeysTable
                keys={page.items}
                seenBy={former.seen}
                onRotate={(key) => setOpen({ rotate: key })}
                onRevoke={(key) => setOpen({ revoke: key })}
              />
            )
          }
        </AsyncView>
      </div>
      {open === 'generate' && (
        <GenerateKeyDialog
          onClose={close}
          onCreated={(key) => {
            setOpen({ shown: key, rotated: false });
            reload(true);
          }}
        />
      )}
      {open !== null && typeof open === 'object' && 'shown' in open && (
        <SecretDialog
          title={open.rotated ? 'Key pair rotated' : 'Key pair generated'}
          secrets={[
            { label: 'Secret key', value: open.shown.secret_key ?? '' },
            { label: 'Publishable key', value: open.shown.publishable_key },
          ]}
          note="The publishable key stays visible in the list; the secret key does not."
          onDone={close}
        />
      )}
      {open !== null && typeof open === 'object' && 'rotate' in open && (
        <GraceDialog
          title="Rotate key pair"
          intro="A new key pair replaces this one. Both of its keys are new; the new secret key is shown once."
          question="The old key pair stops working"
          confirmLabel="Rotate key pair"
          defaultSeconds={0}
          onClose={close}
          onConfirm={async (seconds) => {
            const key = await api<KeyPair>('POST', `/api-keys/${encodeURIComponent(open.rotate.id)}/rotate`, {
              previous_key_expires_in: seconds,
            });
            setOpen({ shown: key, rotated: true });
            reload(true);
          }}
        />
      )}
      {open !== null && typeof open === 'object' && 'revoke' in open && (
        <ConfirmDialog
          title="Revoke key pair"
          confirmLabel="Revoke key pair"
          onClose={close}
          onConfirm={async () => {
            await api('POST', `/api-keys/${encodeURIComponent(open.revoke.id)}/revoke`);
            close();
            reload(true);
          }}
        >
          <p>
            Both keys of <strong>{open.revoke.name || open.revoke.publishable_key}</strong> stop working at
            once, everywhere. This cannot be undone.
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}
