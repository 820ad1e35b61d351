// Signed-in frame: top bar (merchant, test/live switch, sign-out), the test-mode banner, Settings ->
// Developers with its tabs, and the view the URL names. Views remount when the mode changes, so
// nothing of one mode lingers in the other.
import { useEffect, useRef } from 'react';
import { onEnrolmentRequired } from '../lib/api.ts';
import { useMode } from '../lib/mode.ts';
import { navigate, tabOf, type Route } from '../lib/router.ts';
import type { Me } from '../lib/types.ts';
import { ModeSwitch } from '../components/mode-switch.tsx';
import { SignOutButton } from '../components/sign-out-button.tsx';
import { Link } from '../components/link.tsx';
import { StepUpHost } from '../components/step-up-dialog.tsx';
import { TestBanner } from '../components/test-banner.tsx';
import { AccountPage } from './account/account-page.tsx';
import { AccountIds } from './account-ids.tsx';
import { DeveloperTabs } from './developer-tabs.tsx';
import { View } from './view.tsx';

interface Props {
  me: Me;
  route: Route;
  onSignedOut: () => void;
}

const TITLES = {
  apps: 'OAuth apps',
  keys: 'Credentials',
  webhooks: 'Webhooks',
  events: 'Events',
  logs: 'Logs',
  requests: 'Requests',
} as const;

export function Shell({ me, route, onSignedOut }: Props) {
  const mode = useMode();
  const tab = tabOf(route);
  const main = useRef<HTMLElement>(null);

  const account = route.name === 'account';
  const section = account ? 'Account' : 'Developers';

  useEffect(() => {
    document.title = account
      ? 'Account · svc'
      : `${tab ? TITLES[tab] : 'Developers'} · Developers${mode === 'test' ? ' (test mode)' : ''} · svc`;
  }, [tab, mode, account]);

  // A merchant that requires a second factor the member lacks: Settings → Account is the one page open.
  useEffect(() => onEnrolmentRequired(() => navigate('/settings/account')), []);

  return (
    <div className={mode === 'test' ? 'app app-test' : 'app'}>
      <a className="skip-link" href="#main" onClick={() => main.current?.focus()}>
        Skip to content
      </a>
      {mode === 'test' && <TestBanner />}
      <header className="topbar">
        <div className="topbar-inner">
          <span className="logo" aria-hidden="true">
            svc
          </span>
          <span className="merchant-name" title={me.user.email}>
            {me.merchant.name}
          </span>
          <div className="topbar-actions">
            <ModeSwitch tab={tab} />
            <Link to={account ? '/settings/developers/apps' : '/settings/account'} className="btn btn-ghost">
              {account ? 'Developers' : 'Account'}
            </Link>
            <SignOutButton onSignedOut={onSignedOut} />
          </div>
        </div>
      </header>
      <main id="main" ref={main} tabIndex={-1} className="container">
        <nav aria-label="Breadcrumb" className="breadcrumb">
          <ol>
            <li>Settings</li>
            <li aria-current="page">{section}</li>
          </ol>
        </nav>
        <h1 className="page-title">{section}</h1>
        {account ? (
          <AccountPage me={me} onSignedOut={onSignedOut} />
        ) : (
          <>
            <AccountIds me={me} />
            <DeveloperTabs current={tab} />
            <div className="tab-panel">
              <View key={mode} route={route} me={me} />
            </div>
          </>
        )}
      </main>
      <StepUpHost />
    </div>
  );
}
