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
