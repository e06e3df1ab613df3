/**
 * @module The account page in the browser: the Copy button beside a new key, shown only when the
 * clipboard can be written. The key is already in the page (it was made for this visitor by this
 * request); nothing here sends or stores it.
 */
for (const button of document.querySelectorAll<HTMLButtonElement>('button[data-copy]')) {
  const source = document.querySelector(button.dataset.copy ?? '');
  if (!source || !navigator.clipboard) continue;
  button.hidden = false;
  button.addEventListener('click', () => {
    navigator.clipboard.writeText(source.textContent ?? '').then(
      () => {
        button.textContent = 'Copied';
      },
      () => {
        button.textContent = 'Copy failed: select the key and copy it';
      },
    );
  });
}
