/**
 * @module The table page in the browser, only nicer: choosing the rows per page or a column to
 * facet by applies it at once. Without this script the same choices are applied with the form's
 * Apply button; the form is submitted the same way either way (GET, then the canonical address).
 */
for (const select of document.querySelectorAll<HTMLSelectElement>('form.table-controls select[data-apply]')) {
  select.addEventListener('change', () => select.form?.requestSubmit());
}
