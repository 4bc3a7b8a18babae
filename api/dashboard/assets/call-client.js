// The built-in browser call's client: microphone in, the assistant's audio out, a live transcript with each reply's
// latency, who is speaking, mute and hang up. One copy serves the call's own page (/call/<sid>) and the assistant
// builder's talk panel. It speaks the socket protocol of api/transports/browser/serializer.ts (docs/transports.md) and
// finds its elements by `data-call-part` inside the root it is given.
(() => {
  const RATE = 16000;
  const ACTIVITY = { assistant: 'Assistant speaking', caller: 'Listening to you', none: 'Listening', muted: 'Muted: the assistant hears silence' };
  const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

  /** Where a reply's time went, in words, from the `latency` a transcript message carries. */
  function latencyText(latency) {
    if (!latency || latency.e2e_latency_ms === undefined) return '';
    const parts = [
      ['end of turn', latency.end_of_utterance_delay_ms],
      ['model', latency.llm_ttft_ms],
      ['voice', latency.tts_ttfb_ms],
    ].filter(([, ms]) => ms !== undefined);
    return `${seconds(latency.e2e_latency_ms)}${parts.length ? ` (${parts.map(([label, ms]) => `${label} ${seconds(ms)}`).join(', ')})` : ''}`;
  }

  /**
   * Binds a call to the elements under `root`; `start()` opens the microphone and the socket. `state` is what the
   * page shows, kept as data for whoever reads it (the page exposes it as window.callState).
   */
  function create(root, { callSid, token }) {
    const part = (name) => root.querySelector(`[data-call-part="${name}"]`);
    const statusEl = part('status');
    const activityEl = part('activity');
    const startButton = part('start');
    const muteButton = part('mute');
    const hangupButton = part('hangup');
    const transcriptEl = part('transcript');
    const state = { callSid, status: 'idle', playedSamples: 0, sentSamples: 0, mutedSamples: 0, transcript: [], ended: null, activity: 'none' };
    const setStatus = (s) => {
      state.status = s;
      if (statusEl) statusEl.textContent = s;
    };
    let muted = false;
    let callerLevel = 0;
    let activityTimer;
    let ws;
    let ctx;
    let micStream;
    let playhead = 0;

    function setActivity(who) {
      if (state.activity === who) return;
      state.activity = who;
      if (!activityEl) return;
      activityEl.dataset.who = who;
      activityEl.textContent = state.status === 'In call' ? ACTIVITY[who] : '';
    }
    // Over: nothing left to hang up or mute, and the microphone is let go.
    function over(status) {
      setStatus(status);
      if (hangupButton) hangupButton.disabled = true;
      if (muteButton) muteButton.disabled = true;
      clearInterval(activityTimer);
      setActivity('none');
      if (activityEl) activityEl.textContent = '';
      if (micStream) micStream.getTracks().forEach((t) => t.stop());
      root.dispatchEvent(new CustomEvent('call-over', { detail: state }));
    }

    function play(int16) {
      const buffer = ctx.createBuffer(1, int16.length, RATE);
      const data = buffer.getChannelData(0);
      for (let i = 0; i < int16.length; i++) data[i] = int16[i] / 32768;
      const source = ctx.createBufferSource();
      source.buffer = buffer;
      source.connect(ctx.destination);
      playhead = Math.max(playhead, ctx.currentTime + 0.05);
      source.start(playhead);
      playhead += buffer.duration;
      state.playedSamples += int16.length;
    }

    function show(message) {
      const entry = { role: message.role, text: message.text };
      if (message.latency) entry.latency = message.latency;
      state.transcript.push(entry);
      if (!transcriptEl) return;
      const p = document.createElement('p');
      p.className = message.role;
      p.textContent = (message.role === 'user' ? 'You: ' : 'Assistant: ') + message.text;
      const latency = latencyText(message.latency);
      if (latency) {
        const small = document.createElement('small');
        small.className = 'latency';
        small.textContent = ` · ${latency}`;
        p.appendChild(small);
      }
      transcriptEl.appendChild(p);
      transcriptEl.scrollTop = transcriptEl.scrollHeight;
    }

    // A call given up before its socket opened (the microphone refused, the page or the widget's panel closed while it
    // asked) is ended at once rather than left to the unstarted-call sweep: until then it would hold one of its widget's
    // slots. A beacon, so that it still leaves a page being closed.
    let joined = false;
    let abandoned = false;
    function abandon() {
      if (joined || abandoned || !token) return;
      abandoned = true;
      navigator.sendBeacon(`/call/${encodeURIComponent(callSid)}/abandon?token=${encodeURIComponent(token)}`);
    }

    // What the caller is told when the call cannot start; the microphone's two refusals in words they can act on.
    function startFailure(e) {
      if (e && e.name === 'NotAllowedError') return 'Microphone blocked: allow it for this page to talk';
      if (e && e.name === 'NotFoundError') return 'No microphone found: connect one to talk';
      return `Could not start: ${e && e.message}`;
    }

    async function start() {
      if (startButton) startButton.disabled = true;
      window.addEventListener('pagehide', abandon);
      setStatus('Connecting…');
      ctx = new AudioContext({ sampleRate: RATE });
      // Started without a click in this page (a website widget's panel, which its host page frames), the browser may
      // hold the audio until the caller touches the page: the first touch lets it play.
      if (ctx.state === 'suspended') document.addEventListener('pointerdown', () => ctx.resume(), { once: true });
      micStream = await navigator.mediaDevices.getUserMedia({ audio: { channelCount: 1, echoCancellation: true, noiseSuppression: true } });
      await ctx.audioWorklet.addModule('/assets/mic-worklet.js');
      const mic = new AudioWorkletNode(ctx, 'mic');
      ctx.createMediaStreamSource(micStream).connect(mic);
      const url = `${location.protocol === 'https:' ? 'wss://' : 'ws://'}${location.host}/call/${callSid}/audio?token=${encodeURIComponent(token)}`;
      ws = new WebSocket(url);
      ws.binaryType = 'arraybuffer';
      ws.onopen = () => {
        joined = true;
        setStatus('In call');
        if (hangupButton) hangupButton.disabled = false;
        if (muteButton) muteButton.disabled = false;
        activityTimer = setInterval(() => {
          if (playhead > ctx.currentTime) setActivity('assistant');
          else if (muted) setActivity('muted');
          else setActivity(callerLevel > 0.02 ? 'caller' : 'none');
        }, 100);
      };
      ws.onmessage = (ev) => {
        if (typeof ev.data === 'string') {
          const msg = JSON.parse(ev.data);
          if (msg.type === 'transcript') show(msg);
          if (msg.type === 'ended') {
            state.ended = msg;
            over('Call ended');
            // Where the transcript, recording and analysis are read once the call is written.
            const record = part('record');
            if (record) {
              record.querySelector('a').href = `/calls/${encodeURIComponent(callSid)}`;
              record.hidden = false;
            }
          }
          return;
        }
        play(new Int16Array(ev.data));
      };
      // A socket that closes without the end (the server gone, the network down) says so instead of waiting for ever.
      ws.onclose = () => {
        if (state.status !== 'Call ended') over('Disconnected');
      };
      mic.port.onmessage = (ev) => {
        if (!ws || ws.readyState !== 1) return;
        const f = ev.data;
        const out = new Int16Array(f.length);
        let peak = 0;
        for (let i = 0; i < f.length; i++) peak = Math.max(peak, Math.abs(f[i]));
        callerLevel = peak;
        // Muted, the call still gets the caller's side as silence, so its timeline and the recording keep their length.
        if (!muted) for (let i = 0; i < f.length; i++) out[i] = Math.max(-32768, Math.min(32767, Math.round(f[i] * 32767)));
        else state.mutedSamples += out.length;
        state.sentSamples += out.length;
        ws.send(out.buffer);
      };
    }

    // Assigned, not added: a panel that starts another call rebinds its buttons to the new one.
    if (muteButton) {
      muteButton.setAttribute('aria-pressed', 'false');
      muteButton.textContent = 'Mute';
      muteButton.onclick = () => {
        muted = !muted;
        muteButton.setAttribute('aria-pressed', String(muted));
        muteButton.textContent = muted ? 'Unmute' : 'Mute';
      };
    }
    if (hangupButton) {
      hangupButton.onclick = () => {
        hangupButton.disabled = true;
        if (ws && ws.readyState === 1) {
          ws.send(JSON.stringify({ type: 'hangup' }));
          setStatus('Hanging up…');
        } else over('Disconnected');
      };
    }
    return {
      state,
      start: () =>
        start().catch((e) => {
          abandon();
          over(startFailure(e));
        }),
    };
  }

  window.callClient = { create, latencyText };

  // The call's own page: its call and token are in its URL, and Start begins.
  const page = document.querySelector('[data-call-page]');
  if (page) {
    const call = create(page, { callSid: location.pathname.split('/')[2], token: new URLSearchParams(location.search).get('token') || '' });
    window.callState = call.state;
    page.querySelector('[data-call-part="start"]').addEventListener('click', () => call.start());
    call.state.status = 'Ready';
    page.querySelector('[data-call-part="status"]').textContent = 'Ready';
    // A website widget's call: the caller already pressed the widget's button, so the call starts as the panel opens.
    if (page.hasAttribute('data-autostart')) call.start();
  }
})();
