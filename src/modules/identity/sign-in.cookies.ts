// The cookies a sign-in sets, from every route that signs in (signup, `/auth/login`, the authorize page's
// form): the session, and the device cookie that gives this browser a failure budget of its own on its next
// sign-ins (sign-in.service.ts). One set of options, so the three cannot drift apart.
import type { FastifyReply } from 'fastify';
import type { Config } from '../../config.ts';
import { SESSION_COOKIE } from '../../http/merchant-auth.ts';
import type { LoginResult } from './account.service.ts';
import { type SignedIn } from './sign-in.service.ts';
import { DEVICE_COOKIE, DEVICE_COOKIE_MAX_AGE } from './sign-in-limits.ts';

/** HttpOnly, SameSite=Lax, Secure over https (API.md section 2), for the whole site. */
function cookieOptions(config: Config) {
  return {
    httpOnly: true,
    sameSite: 'lax',
    secure: config.publicUrl.startsWith('https:'),
    path: '/',
  } as const;
}

export function setSessionCookie(reply: FastifyReply, config: Config, session: LoginResult): void {
  void reply.setCookie(SESSION_COOKIE, session.token, {
    ...cookieOptions(config),
    expires: new Date(session.expires_at),
  });
}

export function clearSessionCookie(reply: FastifyReply): void {
  void reply.clearCookie(SESSION_COOKIE, { path: '/' });
}

export function setSignInCookies(reply: FastifyReply, config: Config, result: SignedIn): void {
  setSessionCookie(reply, config, result.session);
  void reply.setCookie(DEVICE_COOKIE, result.device, {
    ...cookieOptions(config),
    maxAge: DEVICE_COOKIE_MAX_AGE,
  });
}

/** What a sign-in request carries besides its body. */
export function deviceCookieOf(cookies: Record<string, string | undefined>): string | undefined {
  return cookies[DEVICE_COOKIE];
}
