/**
 * @module The table page in the browser, only nicer: choosing the rows per page or a column to
 * facet by applies it at once. Without this script the same choices are applied with the form's
 * Apply button; the form is submitted the same way either way (GET, then the canonical address).
 */
for (const select of document.querySelectorAll<HTMLSelectElement>('form.table-controls select[data-apply]')) {
  select.addEventListener('change', () => select.form?.requestSubmit());
}

// "Copy a link to this view": the pinned link (version=), made absolute, to the clipboard. Where the
// clipboard is refused (an insecure origin, a denied permission), the link beside it is selected to copy by hand.
for (const button of document.querySelectorAll<HTMLButtonElement>('button.copy-link')) {
  const done = button.parentElement?.querySelector<HTMLElement>('.copy-done');
  button.addEventListener('click', () => {
    const link = new URL(button.dataset.link ?? '', location.href).href;
    navigator.clipboard.writeText(link).then(
      () => {
        if (done) done.textContent = 'Copied.';
      },
      () => {
        const pinned = button.parentElement?.querySelector('a.pinned-link');
        if (pinned) getSelection()?.selectAllChildren(pinned);
        if (done) done.textContent = 'Copy the selected link.';
      },
    );
  });
}
