// Passkeys: adding one on the profile page, signing in with one on the sign-in page. The WebAuthn ceremony is the
// browser's (through the helper in /assets/webauthn.js); this script carries the server's options to it and its
// answer back, with the page's anti-forgery token.
const webauthn = window.SimpleWebAuthnBrowser;
const csrfToken = () => document.querySelector('input[name=_csrf]')?.value ?? '';

async function post(url, body) {
  const headers = { 'x-csrf-token': csrfToken() };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(url, { method: 'POST', headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'same-origin' });
  const answer = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(answer.message ?? answer.detail?.[0]?.msg ?? `The request failed (${res.status})`);
  return answer;
}

// The browser's own refusals ("the operation either timed out or was not allowed") read as what the person did.
function say(box, error) {
  const cancelled = error?.name === 'NotAllowedError' || error?.name === 'AbortError';
  box.textContent = cancelled ? 'The passkey request was cancelled or timed out.' : (error?.message ?? String(error));
}

const add = document.querySelector('[data-passkey-add]');
if (add && webauthn?.browserSupportsWebAuthn()) {
  add.addEventListener('submit', async (event) => {
    event.preventDefault();
    const box = add.querySelector('[data-passkey-error]');
    box.textContent = '';
    try {
      const options = await post('/api/users/me/passkeys/options');
      const response = await webauthn.startRegistration({ optionsJSON: options.data });
      await post('/api/users/me/passkeys', { name: add.elements.name.value, response });
      window.location.assign('/profile?passkey=added');
    } catch (error) {
      say(box, error);
    }
  });
} else if (add) {
  add.querySelector('[data-passkey-error]').textContent = 'This browser cannot use passkeys.';
  add.querySelector('button').disabled = true;
}

const signIn = document.querySelector('[data-passkey-sign-in]');
if (signIn && webauthn?.browserSupportsWebAuthn()) {
  signIn.hidden = false;
  signIn.querySelector('button').addEventListener('click', async () => {
    const box = signIn.querySelector('[data-passkey-error]');
    box.textContent = '';
    try {
      const { options } = await post('/login/passkey/options');
      const response = await webauthn.startAuthentication({ optionsJSON: options });
      const { redirect } = await post('/login/passkey', { response, next: signIn.dataset.next });
      window.location.assign(redirect);
    } catch (error) {
      say(box, error);
    }
  });
}
