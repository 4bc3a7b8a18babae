import type { FastifyInstance } from 'fastify';

// The built-in browser call's page: microphone in, the assistant's audio out, a live transcript, who is speaking, and
// mute and hang-up buttons.
// Plain HTML and JavaScript with no build step and nothing loaded from elsewhere; the page reads its call and token from
// its own URL, and speaks the socket protocol of serializer.ts (docs/transports.md).

export const CALL_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Call</title>
<style>
  body { font: 16px/1.4 system-ui, sans-serif; max-width: 40rem; margin: 2rem auto; padding: 0 1rem; color: #222; }
  #status { color: #555; }
  #transcript p { margin: .4rem 0; }
  #transcript .user { color: #0b5394; }
  button { font: inherit; padding: .5rem 1.2rem; border-radius: 6px; border: 1px solid #2f5bea; background: #2f5bea; color: #fff; cursor: pointer; }
  button.secondary { background: #fff; color: #2f5bea; }
  button:disabled { opacity: .5; cursor: default; }
  button[aria-pressed="true"] { background: #b42318; border-color: #b42318; color: #fff; }
  .controls { display: flex; gap: .5rem; flex-wrap: wrap; margin: 1rem 0; }
  #activity { display: inline-flex; align-items: center; gap: .4rem; color: #555; min-height: 1.4em; }
  #activity::before { content: ""; width: .7rem; height: .7rem; border-radius: 50%; background: #c5ccd8; }
  #activity[data-who="assistant"]::before { background: #2b8a3e; }
  #activity[data-who="caller"]::before { background: #2f5bea; }
</style>
</head>
<body>
<h1>Call</h1>
<p id="status">Connecting…</p>
<p id="activity" aria-live="polite" data-who="none"></p>
<div class="controls"><button id="start">Start call</button> <button id="mute" class="secondary" aria-pressed="false" disabled>Mute</button> <button id="hangup" class="secondary" disabled>Hang up</button></div>
<p id="record" hidden><a href="">See this call's record</a> (in the dashboard, signed in)</p>
<div id="transcript" aria-live="polite"></div>
<script>
(() => {
  const RATE = 16000;
  const callSid = location.pathname.split('/')[2];
  const token = new URLSearchParams(location.search).get('token') || '';
  const state = (window.callState = { status: 'idle', playedSamples: 0, sentSamples: 0, mutedSamples: 0, transcript: [], ended: null, activity: 'none' });
  const statusEl = document.getElementById('status');
  const setStatus = (s) => { state.status = s; statusEl.textContent = s; };
  const hangupButton = document.getElementById('hangup');
  const muteButton = document.getElementById('mute');
  const activityEl = document.getElementById('activity');
  let muted = false, callerLevel = 0, activityTimer;
  // Over: nothing left to hang up or mute, and the microphone is let go.
  const over = (status) => {
    setStatus(status);
    hangupButton.disabled = true;
    muteButton.disabled = true;
    clearInterval(activityTimer);
    setActivity('none');
    if (micStream) micStream.getTracks().forEach((t) => t.stop());
  };
  // Who is speaking: the assistant while its audio is playing, the caller while their microphone hears a voice.
  const ACTIVITY = { assistant: 'Assistant speaking', caller: 'Listening to you', none: 'Listening', muted: 'Muted: the assistant hears silence' };
  function setActivity(who) {
    if (state.activity === who) return;
    state.activity = who;
    activityEl.dataset.who = who;
    activityEl.textContent = state.status === 'In call' ? ACTIVITY[who] : '';
  }
  let ws, ctx, micStream, playhead = 0;

  const worklet = "class Mic extends AudioWorkletProcessor { process(inputs) { const ch = inputs[0] && inputs[0][0]; if (ch) this.port.postMessage(ch.slice(0)); return true; } } registerProcessor('mic', Mic);";

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

  function show(role, text) {
    state.transcript.push({ role, text });
    const p = document.createElement('p');
    p.className = role;
    p.textContent = (role === 'user' ? 'You: ' : 'Assistant: ') + text;
    document.getElementById('transcript').appendChild(p);
  }

  async function start() {
    document.getElementById('start').disabled = true;
    ctx = new AudioContext({ sampleRate: RATE });
    micStream = await navigator.mediaDevices.getUserMedia({ audio: { channelCount: 1, echoCancellation: true, noiseSuppression: true } });
    await ctx.audioWorklet.addModule(URL.createObjectURL(new Blob([worklet], { type: 'application/javascript' })));
    const mic = new AudioWorkletNode(ctx, 'mic');
    ctx.createMediaStreamSource(micStream).connect(mic);
    const url = (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/call/' + callSid + '/audio?token=' + encodeURIComponent(token);
    ws = new WebSocket(url);
    ws.binaryType = 'arraybuffer';
    ws.onopen = () => {
      setStatus('In call');
      hangupButton.disabled = false;
      muteButton.disabled = false;
      activityTimer = setInterval(() => {
        if (playhead > ctx.currentTime) setActivity('assistant');
        else if (muted) setActivity('muted');
        else setActivity(callerLevel > 0.02 ? 'caller' : 'none');
      }, 100);
    };
    ws.onmessage = (ev) => {
      if (typeof ev.data === 'string') {
        const msg = JSON.parse(ev.data);
        if (msg.type === 'transcript') show(msg.role, msg.text);
        if (msg.type === 'ended') {
          state.ended = msg;
          over('Call ended');
          // Where the transcript, recording and analysis are read once the call is written.
          const record = document.getElementById('record');
          record.querySelector('a').href = '/calls/' + encodeURIComponent(callSid);
          record.hidden = false;
        }
        return;
      }
      play(new Int16Array(ev.data));
    };
    // A socket that closes without the end (the server gone, the network down) says so instead of waiting for ever.
    ws.onclose = () => { if (state.status !== 'Call ended') over('Disconnected'); };
    mic.port.onmessage = (ev) => {
      if (!ws || ws.readyState !== 1) return;
      const f = ev.data, out = new Int16Array(f.length);
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

  document.getElementById('start').onclick = () => start().catch((e) => setStatus('Could not start: ' + e.message));
  muteButton.onclick = () => {
    muted = !muted;
    muteButton.setAttribute('aria-pressed', String(muted));
    muteButton.textContent = muted ? 'Unmute' : 'Mute';
  };
  hangupButton.onclick = () => {
    hangupButton.disabled = true;
    if (ws && ws.readyState === 1) {
      ws.send(JSON.stringify({ type: 'hangup' }));
      setStatus('Hanging up…');
    } else over('Disconnected');
  };
  setStatus('Ready');
})();
</script>
</body>
</html>
`;

/** Serves the page at `/call/<call_sid>`. The page itself is public; what it opens, the audio socket, needs the call's token. */
export function registerCallPage(app: FastifyInstance): void {
  app.get('/call/:call_sid', { schema: { hide: true }, config: { auth: 'public' } }, async (_request, reply) =>
    reply
      .type('text/html; charset=utf-8')
      .header('content-security-policy', "default-src 'self'; script-src 'unsafe-inline' blob:; style-src 'unsafe-inline'; connect-src 'self'")
      .header('cache-control', 'no-store')
      .send(CALL_PAGE),
  );
}
