import { html, type Html } from '../../html.js';

// The builder's talk panel: a browser call to the assistant as the form has it, beside the form, with the live
// transcript and each reply's latency. Unsaved changes are saved as the assistant's draft first, which the test call
// runs (its record says so) while live calls keep the saved version. Without the page's script the button posts and
// the call opens on its own page, as "Test call in the browser" always did.

export function talkPanel(assistantId: number, csrf: Html): Html {
  return html`<aside class="card talk" aria-labelledby="talk-title" data-talk>
<h2 id="talk-title">Talk to it</h2>
<p class="muted talk-intro" data-talk-intro>A call in this browser, with your microphone. It runs the form as it is now; callers hear your edits once you save.</p>
<form method="post" action="/assistants/${assistantId}/test-call" class="actions tight" data-talk-form>${csrf}<button type="submit" data-call-part="start">Start a call</button><button type="button" class="secondary" data-call-part="mute" aria-pressed="false" disabled hidden>Mute</button><button type="button" class="secondary" data-call-part="hangup" disabled hidden>Hang up</button></form>
<p class="talk-status" role="status"><span data-call-part="status"></span> <span class="activity" data-call-part="activity" data-who="none"></span></p>
<div class="talk-transcript" data-call-part="transcript" aria-live="polite" aria-label="Transcript"></div>
<p data-call-part="record" hidden><a href="">Review this call</a>: transcript, latency, recording.</p>
<script src="/assets/call-client.js"></script>
</aside>`;
}
