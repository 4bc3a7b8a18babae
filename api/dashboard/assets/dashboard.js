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
