// Whether this browser holds a session cookie. The cookie is HttpOnly, so the page cannot read it; the
// service says in a <meta> of index.html whether one came with the page request. A signed-out visitor is
// thereby spared a 401 (and its console error) on every first load.
let present = document.querySelector('meta[name="svc-session"]')?.getAttribute('content') === '1';

export const session = {
  hinted: () => present,
  set: () => {
    present = true;
  },
  clear: () => {
    present = false;
  },
};

/** Whether self-serve sign-up is open (SVC_SIGNUP): the service says so in a <meta> of index.html too. */
export const signupOpen = () =>
  document.querySelector('meta[name="svc-signup"]')?.getAttribute('content') !== 'off';
