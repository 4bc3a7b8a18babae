// The chart form's enhancements (api/dashboard/pages/chart-form/): as the measure changes, the aggregations it does not
// take are greyed out and the hint names those it does; Enter in the contact search runs the search instead of saving.
// The form posts the same fields without them; the period's days and the analysis field show and hide by the
// stylesheet alone.

const form = document.querySelector('form[data-chart-form]');
if (form) {
  const metric = form.querySelector('select[name="metric"]');
  const aggregation = form.querySelector('select[name="aggregation"]');
  const hint = document.getElementById('f-aggregation-hint');
  const words = (value) => [...aggregation.options].find((o) => o.value === value)?.textContent ?? value;
  const fit = (reset) => {
    const chosen = metric.selectedOptions[0];
    const takes = (chosen?.dataset.aggregations ?? '').split(' ').filter(Boolean);
    for (const option of aggregation.options) {
      // On load the choice sent back stays enabled, refused or not: a disabled option would not be posted again.
      option.disabled = option.value !== '' && takes.length > 0 && !takes.includes(option.value) && (reset || !option.selected);
    }
    if (aggregation.selectedOptions[0]?.disabled) aggregation.value = '';
    if (hint && takes.length > 0) {
      // The option reads "Call length (seconds)": the measure's name is what comes before its unit.
      const name = chosen.textContent.replace(/ \([^)]*\)$/, '');
      hint.textContent =
        takes.length === 1
          ? `${name} is shown as ${words(takes[0])} only.`
          : `${name} is shown as ${takes.map(words).join(', ')}; its usual is ${words(takes[0])}.`;
    }
  };
  if (metric && aggregation) {
    metric.addEventListener('change', () => fit(true));
    fit(false);
  }

  const search = form.querySelector('[data-contact-search]');
  const find = form.querySelector('[data-find-contacts]');
  search?.addEventListener('keydown', (event) => {
    if (event.key !== 'Enter') return;
    event.preventDefault();
    form.requestSubmit(find);
  });
}
