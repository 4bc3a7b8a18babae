// The website widget (docs/widget.md): a page adds
//   <script src="https://voice.example.com/widget.js" data-key="wk_..." async></script>
// and gets a floating "Talk to us" button that starts a browser call to the key's assistant, shown in a panel that
// frames the call page (microphone allowed to that frame alone). Everything the widget draws lives in a shadow root,
// so the page's styles cannot reach it and its styles cannot reach the page. Optional attributes on the script tag:
// data-assistant-label (the button's text), data-color (#rrggbb), data-position ("left" or "right").
(() => {
  const script =
    document.currentScript || document.querySelector('script[data-key][src$="/widget.js"]') || document.querySelector('script[data-key][src*="/widget.js"]');
  if (!script || !script.dataset.key) return;
  const origin = new URL(script.src, location.href).origin;
  const base = `${origin}/api/widget/${encodeURIComponent(script.dataset.key)}`;
  const COLOR = /^#[0-9a-fA-F]{6}$/;

  const STYLE = `
    :host { all: initial; }
    * { box-sizing: border-box; font-family: system-ui, -apple-system, "Segoe UI", sans-serif; }
    .launcher { position: fixed; bottom: 20px; right: 20px; z-index: 2147483000; display: inline-flex; align-items: center; gap: 8px;
      padding: 12px 18px; border: 0; border-radius: 999px; background: var(--accent); color: #fff; font-size: 15px; font-weight: 600;
      line-height: 1.2; cursor: pointer; box-shadow: 0 4px 14px rgba(0, 0, 0, .25); }
    .launcher:focus-visible, .close:focus-visible { outline: 3px solid #111; outline-offset: 2px; }
    .launcher svg { width: 18px; height: 18px; fill: currentColor; }
    .panel { position: fixed; bottom: 80px; right: 20px; z-index: 2147483000; width: 360px; max-width: calc(100vw - 24px);
      height: 440px; max-height: calc(100vh - 110px); display: flex; flex-direction: column; background: #fff; color: #222;
      border-radius: 12px; box-shadow: 0 8px 30px rgba(0, 0, 0, .3); overflow: hidden; }
    .panel[hidden] { display: none; }
    .left .launcher, .left .panel { right: auto; left: 20px; }
    .bar { display: flex; align-items: center; justify-content: space-between; padding: 10px 12px; background: var(--accent); color: #fff; }
    .bar h2 { margin: 0; font-size: 15px; font-weight: 600; }
    .close { border: 0; background: transparent; color: #fff; font-size: 14px; padding: 4px 8px; border-radius: 6px; cursor: pointer; }
    .greeting { margin: 10px 12px 0; font-size: 14px; color: #333; }
    .note { margin: 10px 12px; font-size: 14px; color: #555; }
    .note:empty { display: none; }
    iframe { flex: 1; width: 100%; border: 0; }
    @media (max-width: 480px) { .panel { right: 12px; left: 12px; width: auto; bottom: 76px; } .launcher { right: 12px; bottom: 12px; } .left .launcher { left: 12px; } }
  `;
  const PHONE =
    '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M6.6 10.8a15.1 15.1 0 0 0 6.6 6.6l2.2-2.2a1 1 0 0 1 1-.25 11.4 11.4 0 0 0 3.6.57 1 1 0 0 1 1 1V20a1 1 0 0 1-1 1A17 17 0 0 1 3 4a1 1 0 0 1 1-1h3.5a1 1 0 0 1 1 1c0 1.25.2 2.45.57 3.57a1 1 0 0 1-.25 1z"/></svg>';

  /** The answer's JSON, or an error carrying the status, code and Retry-After; a refused CORS read is a TypeError. */
  async function request(url, init) {
    const res = await fetch(url, { ...init, credentials: 'omit', mode: 'cors' });
    const body = await res.json().catch(() => ({}));
    if (!res.ok)
      throw Object.assign(new Error(body.message || `HTTP ${res.status}`), { status: res.status, code: body.code, retryAfter: res.headers.get('Retry-After') });
    return body.data;
  }

  function render(settings) {
    const host = document.createElement('voice-widget');
    host.style.cssText = 'all: initial; position: static;';
    const root = host.attachShadow({ mode: 'open' });
    const accent = COLOR.test(script.dataset.color || '') ? script.dataset.color : settings.button_color;
    const wrap = document.createElement('div');
    if (script.dataset.position === 'left') wrap.className = 'left';
    wrap.style.setProperty('--accent', accent);
    const style = document.createElement('style');
    style.textContent = STYLE;

    const launcher = document.createElement('button');
    launcher.type = 'button';
    launcher.className = 'launcher';
    launcher.setAttribute('aria-haspopup', 'dialog');
    launcher.setAttribute('aria-expanded', 'false');
    launcher.setAttribute('aria-controls', 'voice-widget-panel');
    launcher.innerHTML = PHONE;
    launcher.append(document.createTextNode((script.dataset.assistantLabel || settings.button_label).slice(0, 60)));

    const panel = document.createElement('div');
    panel.id = 'voice-widget-panel';
    panel.className = 'panel';
    panel.setAttribute('role', 'dialog');
    panel.setAttribute('aria-label', 'Call');
    panel.hidden = true;
    const bar = document.createElement('div');
    bar.className = 'bar';
    const title = document.createElement('h2');
    title.textContent = launcher.textContent;
    const close = document.createElement('button');
    close.type = 'button';
    close.className = 'close';
    close.textContent = 'End and close';
    close.setAttribute('aria-label', 'End the call and close');
    bar.append(title, close);
    panel.append(bar);
    if (settings.greeting) {
      const greeting = document.createElement('p');
      greeting.className = 'greeting';
      greeting.textContent = settings.greeting;
      panel.append(greeting);
    }
    const note = document.createElement('p');
    note.className = 'note';
    note.setAttribute('role', 'status');
    panel.append(note);

    wrap.append(launcher, panel);
    root.append(style, wrap);
    document.body.append(host);

    let frame = null;
    let starting = false;
    function open() {
      panel.hidden = false;
      launcher.setAttribute('aria-expanded', 'true');
      close.focus();
    }
    // Closing removes the call's frame: its socket closes, and the call ends as a hang-up.
    function end() {
      if (frame) frame.remove();
      frame = null;
      panel.hidden = true;
      note.textContent = '';
      launcher.setAttribute('aria-expanded', 'false');
      launcher.focus();
    }
    async function start() {
      if (frame || starting) return open();
      starting = true;
      note.textContent = 'Connecting…';
      open();
      try {
        const call = await request(`${base}/calls`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
        if (panel.hidden) return;
        note.textContent = '';
        frame = document.createElement('iframe');
        frame.title = 'Call';
        // The call page asks for the microphone and plays the answer: allowed to this frame, from the click that opened it.
        frame.allow = 'microphone; autoplay';
        frame.src = call.page_url;
        panel.append(frame);
      } catch (error) {
        note.textContent =
          error.status === 429 || error.status === 503
            ? `We are busy right now: please try again${error.retryAfter ? ` in ${error.retryAfter} seconds` : ' shortly'}.`
            : 'The call could not be started. Please try again later.';
      } finally {
        starting = false;
      }
    }
    launcher.addEventListener('click', () => (panel.hidden ? start() : end()));
    close.addEventListener('click', end);
    panel.addEventListener('keydown', (event) => {
      if (event.key === 'Escape') end();
    });
  }

  const boot = () =>
    request(base, { method: 'GET' }).then(render, (error) => {
      // A key that is revoked, or a page whose origin the key does not list, shows nothing; the console says why.
      console.warn(`voice widget: not shown (${error.code || error.message})`);
    });
  if (document.body) boot();
  else document.addEventListener('DOMContentLoaded', boot);
})();
