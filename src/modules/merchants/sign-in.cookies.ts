// The cookies a successful sign-in sets, from either sign-in route: the session, and the device cookie that
// gives this browser a failure budget of its own on its next sign-ins (sign-in.service.ts).
import type { FastifyReply } from 'fastify';
import type { Config } from '../../config.ts';
import { SESSION_COOKIE } from '../../http/merchant-auth.ts';
import { DEVICE_COOKIE, DEVICE_COOKIE_MAX_AGE, type SignInResult } from './sign-in.service.ts';

export function setSignInCookies(reply: FastifyReply, config: Config, result: SignInResult): void {
  const secure = config.publicUrl.startsWith('https:');
  void reply.setCookie(SESSION_COOKIE, result.session.token, {
    httpOnly: true,
    sameSite: 'lax',
    secure,
    path: '/',
    expires: new Date(result.session.expires_at),
  });
  void reply.setCookie(DEVICE_COOKIE, result.device, {
    httpOnly: true,
    sameSite: 'lax',
    secure,
    path: '/',
    maxAge: DEVICE_COOKIE_MAX_AGE,
  });
}

/** What a sign-in request carries besides its body. */
export function deviceCookieOf(cookies: Record<string, string | undefined>): string | undefined {
  return cookies[DEVICE_COOKIE];
}
