// Small enhancements; every page works without them.
// Times are sent in UTC (<time datetime>) and shown in the reader's own time zone.
for (const el of document.querySelectorAll('time[datetime]')) {
  const date = new Date(el.getAttribute('datetime'));
  if (!Number.isNaN(date.getTime())) {
    el.textContent = date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
    el.title = date.toISOString();
  }
}
// Destructive buttons ask first.
document.addEventListener('submit', (event) => {
  const message = event.submitter?.dataset.confirm ?? event.target.dataset.confirm;
  if (message && !window.confirm(message)) event.preventDefault();
});
// Copy buttons copy the text of the element they name.
for (const button of document.querySelectorAll('[data-copy]')) {
  button.addEventListener('click', async () => {
    const text = document.getElementById(button.dataset.copy)?.textContent ?? '';
    await navigator.clipboard?.writeText(text.trim());
    button.textContent = 'Copied';
  });
}
// A chosen file is read into the text field the form posts.
for (const input of document.querySelectorAll('input[type=file][data-into]')) {
  input.addEventListener('change', async () => {
    const file = input.files?.[0];
    const target = document.getElementById(input.dataset.into);
    if (file && target) target.value = await file.text();
  });
}
// A picked file travels in the form as base64 with its name, as the API's JSON upload takes it.
for (const input of document.querySelectorAll('input[type=file][data-base64-into]')) {
  input.addEventListener('change', async () => {
    const file = input.files?.[0];
    if (!file) return;
    const bytes = new Uint8Array(await file.arrayBuffer());
    let binary = '';
    for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    document.getElementById(input.dataset.base64Into).value = btoa(binary);
    document.getElementById(input.dataset.filenameInto).value = file.name;
  });
}
// A list with work under way reloads until it is done.
const refresh = document.querySelector('[data-refresh-ms]');
if (refresh) setTimeout(() => location.reload(), Number(refresh.dataset.refreshMs));
// The assistant builder: one section at a time, changes not yet saved marked, the voice list of the chosen provider.
for (const form of document.querySelectorAll('form[data-builder]')) {
  const tabs = [...form.querySelectorAll('[role=tab]')];
  const show = (tab, focus) => {
    for (const t of tabs) {
      const selected = t === tab;
      t.setAttribute('aria-selected', String(selected));
      t.tabIndex = selected ? 0 : -1;
      document.getElementById(t.getAttribute('aria-controls'))?.setAttribute('data-open', String(selected));
    }
    if (focus) tab.focus();
  };
  form.classList.add('tabs-ready');
  const fromHash = tabs.find((t) => t.getAttribute('href') === location.hash);
  show(fromHash ?? tabs.find((t) => t.getAttribute('aria-selected') === 'true') ?? tabs[0], false);
  // A link to a section (a warning naming a setting) opens its tab.
  window.addEventListener('hashchange', () => {
    const tab = tabs.find((t) => t.getAttribute('href') === location.hash);
    if (tab) show(tab, false);
  });
  for (const [i, tab] of tabs.entries()) {
    tab.addEventListener('click', (event) => {
      event.preventDefault();
      show(tab, false);
      history.replaceState(null, '', tab.getAttribute('href'));
    });
    tab.addEventListener('keydown', (event) => {
      const step = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
      if (step) show(tabs[(i + step + tabs.length) % tabs.length], true);
    });
  }
  const unsaved = form.querySelector('[data-unsaved]');
  let dirty = false;
  const markDirty = () => {
    dirty = true;
    if (unsaved) unsaved.hidden = false;
  };
  form.addEventListener('input', markDirty);
  form.addEventListener('change', markDirty);
  form.addEventListener('submit', () => (dirty = false));
  // The talk panel: changes not yet saved are saved first, then a call to the assistant runs in this page.
  const talk = document.querySelector('[data-talk]');
  const talkForm = talk?.querySelector('[data-talk-form]');
  if (talk && talkForm && window.callClient) {
    const part = (name) => talk.querySelector(`[data-call-part="${name}"]`);
    const say = (text) => (part('status').textContent = text);
    talkForm.addEventListener('submit', async (event) => {
      event.preventDefault();
      const start = part('start');
      start.disabled = true;
      if (dirty) {
        // Tried as the assistant's draft, which only test calls run: live calls keep what is saved until Save.
        say('Trying your changes…');
        const tried = await fetch(`${form.action}/draft`, { method: 'POST', body: new URLSearchParams(new FormData(form)) }).catch(() => undefined);
        if (!tried?.ok) {
          // Refused: the form is posted for real, so that each refusal shows at its setting.
          dirty = false;
          form.submit();
          return;
        }
      }
      say('Starting…');
      const res = await fetch(talkForm.action, {
        method: 'POST',
        headers: { accept: 'application/json' },
        body: new URLSearchParams(new FormData(talkForm)),
      }).catch(() => undefined);
      const started = await res?.json().catch(() => undefined);
      if (!res?.ok || !started?.call_sid) {
        say(started?.message ?? 'Could not start a call: is the service still running?');
        start.disabled = false;
        return;
      }
      part('transcript').replaceChildren();
      part('record').hidden = true;
      part('mute').hidden = false;
      part('hangup').hidden = false;
      const call = window.callClient.create(talk, { callSid: started.call_sid, token: started.token });
      window.callState = call.state;
      talk.addEventListener(
        'call-over',
        () => {
          start.disabled = false;
          start.textContent = 'Start another call';
        },
        { once: true },
      );
      call.start();
    });
  }
  window.addEventListener('beforeunload', (event) => {
    if (dirty) event.preventDefault();
  });
  // Rows (fallback models, languages): the next blank row of the same list on request, up to the API's bound.
  for (const add of form.querySelectorAll('[data-add-spare]')) {
    const list = add.closest('fieldset');
    add.hidden = false;
    add.addEventListener('click', () => {
      const spare = list.querySelector('[data-spare][hidden]');
      if (spare) {
        spare.hidden = false;
        spare.querySelector('select, input')?.focus();
      }
      if (!list.querySelector('[data-spare][hidden]')) add.hidden = true;
    });
  }
  // The voice list follows the provider: the account's own voices when the service can read them with a key
  // (GET /assistants/:id/voices), else the stock list the page carries; "Another voice id…" opens a field for one typed
  // in. The voice stored stays chosen whichever list is shown.
  const provider = form.querySelector('[name="tts_settings.provider"]');
  const voiceList = form.querySelector('select.voice-list');
  const other = form.querySelector('input.voice-other');
  const syncOther = () => {
    if (other) other.hidden = voiceList?.value !== '__other';
  };
  const chosenVoice = () => (voiceList?.value === '__other' ? (other?.value.trim() ?? '') : (voiceList?.value ?? ''));
  const assistantPath = /^\/assistants\/\d+$/.exec(new URL(form.action, location.href).pathname)?.[0];
  const stored = { provider: provider?.value, voice: chosenVoice() };
  const source = document.createElement('span');
  source.className = 'hint';
  source.dataset.voiceSource = '';
  source.setAttribute('aria-live', 'polite');
  (other ?? voiceList)?.after(source);
  let previews = new Set();
  let asked = 0;
  const optionOf = (v) => new Option(v.description ? `${v.name} · ${v.description}` : v.name, v.id);
  const group = (label, voices) => {
    const g = document.createElement('optgroup');
    g.label = label;
    g.append(...voices.map(optionOf));
    return g;
  };
  const showVoices = (answer, current) => {
    const options = [new Option('Provider’s default voice', '')];
    if (answer.source === 'account') {
      const own = answer.voices.filter((v) => v.own);
      const stock = answer.voices.filter((v) => !v.own);
      if (own.length > 0) options.push(group('Your voices', own));
      if (stock.length > 0) options.push(group('Stock voices', stock));
    } else {
      options.push(...answer.voices.map(optionOf));
    }
    options.push(new Option('Another voice id…', '__other'));
    voiceList.replaceChildren(...options);
    previews = new Set(answer.voices.filter((v) => v.preview).map((v) => v.id));
    if (current === '' || answer.voices.some((v) => v.id === current)) {
      voiceList.value = current;
    } else {
      voiceList.value = '__other';
      if (other) other.value = current;
    }
    const vendor = provider?.selectedOptions[0]?.textContent ?? '';
    source.textContent = answer.note ?? (answer.source === 'account' ? `From your ${vendor} account` : '');
    syncOther();
  };
  const stockVoices = (name) => ({ source: 'curated', voices: JSON.parse(voiceList.dataset.voices || '{}')[name] ?? [] });
  // The account's list replaces the stock one when it arrives, keeping whatever voice is chosen by then.
  const loadVoices = async () => {
    const name = provider?.value;
    const ask = ++asked;
    if (!assistantPath || !name || name === 'local') return;
    const res = await fetch(`${assistantPath}/voices?provider=${encodeURIComponent(name)}`, { headers: { accept: 'application/json' } }).catch(() => undefined);
    const answer = res?.ok ? await res.json().catch(() => undefined) : undefined;
    if (ask !== asked || provider.value !== name || !Array.isArray(answer?.voices)) return;
    showVoices(answer, chosenVoice());
  };
  provider?.addEventListener('change', () => {
    if (!voiceList) return;
    showVoices(stockVoices(provider.value), provider.value === stored.provider ? stored.voice : '');
    void loadVoices();
  });
  voiceList?.addEventListener('change', syncOther);
  if (voiceList) void loadVoices();
  const preview = form.querySelector('[data-voice-preview]');
  const status = form.querySelector('[data-voice-preview-status]');
  const play = async (url, voice) => {
    status.textContent = 'Loading…';
    const res = await fetch(url).catch(() => undefined);
    if (!res?.ok) {
      status.textContent = 'No sample for this voice.';
      return;
    }
    const audio = new Audio(URL.createObjectURL(await res.blob()));
    audio.dataset.voiceSample = voice;
    document.body.append(audio);
    audio.hidden = true;
    await audio.play().catch(() => undefined);
    status.textContent = 'Playing a sample.';
  };
  preview?.addEventListener('click', async () => {
    if (provider?.value === 'local') {
      const voice = voiceList?.value || 'en-us';
      if (voice === '__other') {
        status.textContent = 'Samples play for the voices listed here; another voice is heard in a test call.';
        return;
      }
      await play(`/assistants/voice-sample?voice=${encodeURIComponent(voice)}`, voice);
      return;
    }
    const voice = chosenVoice();
    if (!assistantPath || !previews.has(voice)) {
      status.textContent = 'No sample of this voice here: hear it in a test call, with its key.';
      return;
    }
    await play(`${assistantPath}/voices/preview?provider=${encodeURIComponent(provider.value)}&voice=${encodeURIComponent(voice)}`, voice);
  });
}
