// The shell: who is signed in, which view the URL names, and the signed-out pages.
import { useCallback, useEffect, useState } from 'react';
import { api, onSignedOut } from './lib/api.ts';
import { BASE, navigate, parse, usePath } from './lib/router.ts';
import { session, signupOpen } from './lib/session.ts';
import type { Me } from './lib/types.ts';
import { AuthPage } from './pages/auth/auth-page.tsx';
import { JoinPage } from './pages/auth/join-page.tsx';
import { Shell } from './pages/shell.tsx';

const NEXT = 'svc.after-signin';

type SessionState = { status: 'checking' } | { status: 'out' } | { status: 'in'; me: Me };

export function App() {
  const route = parse(usePath());
  const [state, setState] = useState<SessionState>(() =>
    session.hinted() ? { status: 'checking' } : { status: 'out' },
  );

  useEffect(() => {
    if (state.status !== 'checking') return;
    api<Me>('GET', '/me').then(
      (me) => setState({ status: 'in', me }),
      () => {
        session.clear();
        setState({ status: 'out' });
      },
    );
  }, [state.status]);

  useEffect(
    () =>
      onSignedOut(() => {
        session.clear();
        setState({ status: 'out' });
      }),
    [],
  );

  const signedIn = useCallback((me: Me) => {
    session.set();
    setState({ status: 'in', me });
  }, []);

  const isAuthRoute = route.name === 'signin' || route.name === 'signup';
  // An invitation's page serves the signed-in and the signed-out alike.
  const isJoin = route.name === 'join';
  useEffect(() => {
    if (isJoin) return;
    if (state.status === 'out' && !isAuthRoute) {
      // Come back to the page asked for once signed in.
      if (route.name !== 'home') sessionStorage.setItem(NEXT, location.pathname.slice(BASE.length));
      navigate('/signin', { replace: true });
    } else if (state.status === 'in' && (isAuthRoute || route.name === 'home')) {
      const next = sessionStorage.getItem(NEXT);
      sessionStorage.removeItem(NEXT);
      navigate(next ?? '/settings/developers/apps', { replace: true });
    }
  }, [state.status, isAuthRoute, isJoin, route.name]);

  if (state.status === 'checking') {
    return (
      <div className="loading page-loading" role="status">
        <span className="spinner" aria-hidden="true" />
        Loading your dashboard…
      </div>
    );
  }
  if (isJoin) {
    return (
      <JoinPage
        me={state.status === 'in' ? state.me : null}
        onJoined={(me) => {
          signedIn(me);
          navigate('/settings/developers/apps', { replace: true });
        }}
      />
    );
  }
  if (state.status === 'out') {
    // With sign-up closed (SVC_SIGNUP=off) its page is the sign-in page, which says so.
    const kind = route.name === 'signup' && signupOpen() ? 'signup' : 'signin';
    return <AuthPage kind={kind} onSignedIn={signedIn} />;
  }
  return (
    <Shell
      me={state.me}
      route={route}
      onSwitched={signedIn}
      onSignedOut={() => {
        session.clear();
        setState({ status: 'out' });
      }}
    />
  );
}
