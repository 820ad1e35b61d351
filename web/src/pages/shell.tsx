// Signed-in frame: top bar (merchant, the switch to another merchant of the user, test/live switch,
// sign-out), the test-mode banner, Settings -> Developers with its tabs or Settings -> Team, and the view the
// URL names. Views remount when the mode or the merchant changes, so nothing of one lingers in the other. The
// member's role is given to every view below (lib/role.ts), which leaves out the controls beyond it.
import { useEffect, useRef } from 'react';
import { useMode } from '../lib/mode.ts';
import { RoleContext } from '../lib/role.ts';
import { tabOf, type Route } from '../lib/router.ts';
import type { Me } from '../lib/types.ts';
import { Link } from '../components/link.tsx';
import { MerchantSwitch } from '../components/merchant-switch.tsx';
import { ModeSwitch } from '../components/mode-switch.tsx';
import { SignOutButton } from '../components/sign-out-button.tsx';
import { TestBanner } from '../components/test-banner.tsx';
import { AccountIds } from './account-ids.tsx';
import { DeveloperTabs } from './developer-tabs.tsx';
import { TeamPage } from './team/team-page.tsx';
import { View } from './view.tsx';

interface Props {
  me: Me;
  route: Route;
  onSwitched: (me: Me) => void;
  onSignedOut: () => void;
}

/** Settings holds Developers and Team. */
function SettingsNav({ current }: { current: 'developers' | 'team' }) {
  const item = (id: typeof current, to: string, label: string) => (
    <Link
      to={to}
      className={current === id ? 'subnav-item subnav-current' : 'subnav-item'}
      aria-current={current === id ? 'page' : undefined}
    >
      {label}
    </Link>
  );
  return (
    <nav aria-label="Settings" className="subnav">
      {item('developers', '/settings/developers/apps', 'Developers')}
      {item('team', '/settings/team', 'Team')}
    </nav>
  );
}

const TITLES = {
  apps: 'OAuth apps',
  keys: 'Credentials',
  webhooks: 'Webhooks',
  events: 'Events',
  logs: 'Logs',
  requests: 'Requests',
} as const;

export function Shell({ me, route, onSwitched, onSignedOut }: Props) {
  const mode = useMode();
  const tab = tabOf(route);
  const team = route.name === 'team';
  const main = useRef<HTMLElement>(null);

  useEffect(() => {
    document.title = team
      ? 'Team · svc'
      : `${tab ? TITLES[tab] : 'Developers'} · Developers${mode === 'test' ? ' (test mode)' : ''} · svc`;
  }, [tab, mode, team]);

  return (
    <RoleContext.Provider value={me.role}>
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
            {me.memberships.length > 1 ? (
              <MerchantSwitch me={me} onSwitched={onSwitched} />
            ) : (
              <span className="merchant-name" title={me.user.email}>
                {me.merchant.name}
              </span>
            )}
            <div className="topbar-actions">
              <ModeSwitch tab={tab} />
              <SignOutButton onSignedOut={onSignedOut} />
            </div>
          </div>
        </header>
        <main id="main" ref={main} tabIndex={-1} className="container">
          <nav aria-label="Breadcrumb" className="breadcrumb">
            <ol>
              <li>Settings</li>
              <li aria-current="page">{team ? 'Team' : 'Developers'}</li>
            </ol>
          </nav>
          <SettingsNav current={team ? 'team' : 'developers'} />
          <h1 className="page-title">{team ? 'Team' : 'Developers'}</h1>
          {team ? (
            <TeamPage key={me.merchant.id} me={me} />
          ) : (
            <>
              <AccountIds me={me} />
              <DeveloperTabs current={tab} />
              <div className="tab-panel">
                <View key={`${me.merchant.id} ${mode}`} route={route} me={me} />
              </div>
            </>
          )}
        </main>
      </div>
    </RoleContext.Provider>
  );
}
