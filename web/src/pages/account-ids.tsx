// The merchant's own ids, which integrators ask for (a store id for the cart route, a merchant id for
// support): shown under Settings -> Developers with copy buttons.
import type { Me } from '../lib/types.ts';
import { CopyButton } from '../components/copy-button.tsx';
import { GUIDES, guideUrl } from '../lib/guides.ts';

export function AccountIds({ me }: { me: Me }) {
  const store = me.stores[0];
  return (
    <dl className="account-ids" aria-label="Account identifiers">
      <div className="copy-row">
        <dt>Merchant ID</dt>
        <dd className="copy-row">
          <code>{me.merchant.id}</code>
          <CopyButton value={me.merchant.id} label="Copy merchant ID" />
        </dd>
      </div>
      {store && (
        <div className="copy-row">
          <dt>Store ID</dt>
          <dd className="copy-row">
            <code>{store.id}</code>
            <CopyButton value={store.id} label="Copy store ID" />
          </dd>
        </div>
      )}
      <div className="copy-row">
        <dt>Guides</dt>
        <dd className="copy-row guide-links">
          {GUIDES.map((g) => (
            <a key={g.name} href={guideUrl(g.name)}>
              {g.title}
            </a>
          ))}
        </dd>
      </div>
    </dl>
  );
}
