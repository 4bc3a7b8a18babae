// A call's waveforms steer the page's player and follow it (api/dashboard/pages/call-waveform.ts): a turn's marker, or
// a click anywhere on the picture, seeks the player there, and a playhead shows where it is. Without this script the
// picture still shows, and a marker leads to its turn in the transcript.
for (const figure of document.querySelectorAll('[data-waveform]')) {
  const audio = document.getElementById(figure.dataset.audio);
  const svg = figure.querySelector('svg');
  const playhead = figure.querySelector('.playhead');
  const durationMs = Number(figure.dataset.durationMs);
  if (!audio || !svg || !playhead || !(durationMs > 0)) continue;

  const show = () => {
    const at = `${Math.min(100, Math.max(0, ((audio.currentTime * 1000) / durationMs) * 100)).toFixed(2)}%`;
    playhead.setAttribute('x1', at);
    playhead.setAttribute('x2', at);
  };
  const seek = (ms) => {
    audio.currentTime = Math.max(0, ms) / 1000;
    show();
  };

  svg.addEventListener('click', (event) => {
    const marker = event.target.closest('a[data-ms]');
    event.preventDefault();
    if (marker) return seek(Number(marker.dataset.ms));
    const box = svg.getBoundingClientRect();
    seek(((event.clientX - box.left) / box.width) * durationMs);
  });

  // timeupdate comes about four times a second: while playing, the playhead moves every frame instead.
  let frame = 0;
  const follow = () => {
    show();
    frame = audio.paused ? 0 : requestAnimationFrame(follow);
  };
  audio.addEventListener('play', () => {
    if (!frame) frame = requestAnimationFrame(follow);
  });
  audio.addEventListener('timeupdate', show);
  audio.addEventListener('seeked', show);
  figure.classList.add('live');
  show();
}
