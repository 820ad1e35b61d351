// The addresses deliveries leave from (GET /webhook-source-addresses), to allow in a receiver's firewall,
// each with a copy button, and the whole list at once.
import { api } from '../../lib/api.ts';
import type { SourceAddresses } from '../../lib/types.ts';
import { useAsync } from '../../lib/use-async.ts';
import { AsyncView } from '../../components/async-view.tsx';
import { CopyButton } from '../../components/copy-button.tsx';
import { TimeText } from '../../components/time-text.tsx';

export function SourceAddressesCard() {
  const { state, reload } = useAsync(() => api<SourceAddresses>('GET', '/webhook-source-addresses'), []);
  return (
    <section className="card card-padded stack" aria-labelledby="source-addresses-title">
      <h3 className="card-title" id="source-addresses-title">
        Source addresses
      </h3>
      <AsyncView state={state} onRetry={reload} label="the source addresses">
        {(data) =>
          data.addresses.length === 0 ? (
            <p className="muted small">
              The operator has declared no addresses that deliveries leave from: verify each delivery&apos;s
              signature rather than its address.
            </p>
          ) : (
            <>
              <p className="muted small">
                Deliveries leave from these addresses: allow them if your endpoint is behind a firewall.
                Listed since <TimeText value={data.updated_at} />.
              </p>
              <ul className="stack" aria-label="Source addresses">
                {data.addresses.map((a) => (
                  <li key={a} className="toolbar">
                    <code>{a}</code>
                    <CopyButton value={a} label={`Copy ${a}`} />
                  </li>
                ))}
              </ul>
              <div>
                <CopyButton value={data.addresses.join('\n')} label="Copy every address" />
              </div>
            </>
          )
        }
      </AsyncView>
    </section>
  );
}
