import { useState } from 'react';
import { api } from '../../lib/api.ts';
import { navigate } from '../../lib/router.ts';
import type { App } from '../../lib/types.ts';
import { PageHeader } from '../../components/page-header.tsx';
import { SecretDialog } from '../../components/secret-dialog.tsx';
import { AppForm, type AppFields } from './app-form.tsx';

export function AppCreatePage() {
  const [created, setCreated] = useState<App | null>(null);

  const create = async (fields: AppFields) => {
    const body = {
      name: fields.name,
      redirect_uris: fields.redirect_uris,
      allowed_scopes: fields.allowed_scopes,
      ...(fields.description ? { description: fields.description } : {}),
    };
    setCreated(await api<App>('POST', '/developer/apps', body));
  };

  return (
    <section aria-labelledby="section-title">
      <PageHeader
        title="Create an OAuth app"
        back={{ to: '/settings/developers/apps', label: 'OAuth apps' }}
      />
      <div className="card card-padded">
        <AppForm
          initial={{ name: '', description: '', redirect_uris: [''], allowed_scopes: ['public:read'] }}
          submitLabel="Create app"
          onSubmit={create}
          onCancel={() => navigate('/settings/developers/apps')}
        />
      </div>
      {created && (
        <SecretDialog
          title="App created"
          secrets={[
            { label: 'Client ID', value: created.client_id },
            { label: 'Client secret', value: created.client_secret ?? '' },
          ]}
          onDone={() => navigate(`/settings/developers/apps/${created.id}`, { replace: true })}
        />
      )}
    </section>
  );
}
