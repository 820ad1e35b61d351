// Whether this browser believes it is signed in. The session cookie is HttpOnly, so the page cannot read
// it; this hint spares a signed-out visitor a 401 (and its console error) on every first load.
const KEY = 'svc.signed-in';

export const session = {
  hinted: () => localStorage.getItem(KEY) === '1',
  set: () => localStorage.setItem(KEY, '1'),
  clear: () => localStorage.removeItem(KEY),
};
