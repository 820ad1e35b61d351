// Signed-in frame: top bar (merchant, the switch to another merchant of the user, test/live switch,
// sign-out), the test-mode banner, Settings -> Developers with its tabs, Team or Account, and the view the URL
// names. Views remount when the mode or the merchant changes, so nothing of one lingers in the other. The
// member's role is given to every view below (lib/role.ts), which leaves out the controls beyond it; a
// sensitive action asks for a second factor in place (the step-up dialog). A member whom the merchant holds to
// enrolment of a second factor sees Settings → Account alone, with a banner that says why (API.md 12.4), and
// the whole frame once a factor is enrolled.
import { useEffect, useRef } from 'react';
import { api, onEnrolmentRequired } from '../lib/api.ts';
import { useMode } from '../lib/mode.ts';
import { RoleContext } from '../lib/role.ts';
import { navigate, tabOf, type Route } from '../lib/router.ts';
import type { Me } from '../lib/types.ts';
import { Link } from '../components/link.tsx';
import { MerchantSwitch } from '../components/merchant-switch.tsx';
import { ModeSwitch } from '../components/mode-switch.tsx';
import { SignOutButton } from '../components/sign-out-button.tsx';
import { StepUpHost } from '../components/step-up-dialog.tsx';
import { TestBanner } from '../components/test-banner.tsx';
import { AccountPage } from './account/account-page.tsx';
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

type Section = 'developers' | 'team' | 'account';
const SECTIONS: Record<Section, { to: string; label: string }> = {
  developers: { to: '/settings/developers/apps', label: 'Developers' },
  team: { to: '/settings/team', label: 'Team' },
  account: { to: '/settings/account', label: 'Account' },
};

/** Settings holds Developers, Team and the signed-in person's Account. */
function SettingsNav({ current }: { current: Section }) {
  return (
    <nav aria-label="Settings" className="subnav">
      {(Object.keys(SECTIONS) as Section[]).map((id) => (
        <Link
          key={id}
          to={SECTIONS[id].to}
          className={current === id ? 'subnav-item subnav-current' : 'subnav-item'}
          aria-current={current === id ? 'page' : undefined}
        >
          {SECTIONS[id].label}
        </Link>
      ))}
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
  const held = me.mfa_enrolment_required === true;
  const section: Section = held
    ? 'account'
    : route.name === 'team'
      ? 'team'
      : route.name === 'account'
        ? 'account'
        : 'developers';
  const label = SECTIONS[section].label;
  const main = useRef<HTMLElement>(null);

  useEffect(() => {
    document.title =
      section === 'developers'
        ? `${tab ? TITLES[tab] : 'Developers'} · Developers${mode === 'test' ? ' (test mode)' : ''} · svc`
        : `${label} · svc`;
  }, [tab, mode, section, label]);

  // A merchant that requires a second factor the member lacks: Settings → Account is the one page open.
  // (an owner who required it without a factor of its own meets it on its next call: /me then says so)
  useEffect(
    () =>
      onEnrolmentRequired(() => {
        navigate('/settings/account');
        void api<Me>('GET', '/me').then(onSwitched, () => undefined);
      }),
    [onSwitched],
  );
  useEffect(() => {
    if (held && route.name !== 'account') navigate('/settings/account', { replace: true });
  }, [held, route.name]);

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
              {!held && <ModeSwitch tab={tab} />}
              <SignOutButton onSignedOut={onSignedOut} />
            </div>
          </div>
        </header>
        <main id="main" ref={main} tabIndex={-1} className="container">
          <nav aria-label="Breadcrumb" className="breadcrumb">
            <ol>
              <li>Settings</li>
              <li aria-current="page">{label}</li>
            </ol>
          </nav>
          {!held && <SettingsNav current={section} />}
          <h1 className="page-title">{label}</h1>
          {section === 'team' && <TeamPage key={me.merchant.id} me={me} />}
          {section === 'account' && (
            <AccountPage
              me={me}
              onSignedOut={onSignedOut}
              onEnrolled={() => void api<Me>('GET', '/me').then(onSwitched, () => undefined)}
            />
          )}
          {section === 'developers' && (
            <>
              <AccountIds me={me} />
              <DeveloperTabs current={tab} />
              <div className="tab-panel">
                <View key={`${me.merchant.id} ${mode}`} route={route} me={me} />
              </div>
            </>
          )}
        </main>
        <StepUpHost />
      </div>
    </RoleContext.Provider>
  );
}
