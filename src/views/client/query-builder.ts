/**
 * @module The query builder in the browser: keeps the request URL and the examples in step with the
 * form as the visitor types, maps columns for Atom, and runs the query with the visitor's key.
 * The key is read from its field when needed and sent only to the API, in the X-API-Key header:
 * it is never stored, never put in this page's URL (its field has no name, so the form cannot
 * submit it) and never sent anywhere else. Results are shown with textContent, never as markup.
 */
import {
  atomFields,
  examples,
  fileName,
  guessAtomMapping,
  keyPlaceholder,
  requestUrl,
  withAtomColumns,
  firstRowsSql,
  type ApiRequest,
  type AtomMapping,
} from '../../shared/api-request.js';

interface TableInfo {
  name: string;
  columns: { name: string }[];
}

/** Rows shown from a result; the rest are counted. */
const shownRows = 100;
/** Characters shown of a text result. */
const shownChars = 20_000;

function element<T extends HTMLElement>(root: ParentNode, selector: string): T {
  const found = root.querySelector<T>(selector);
  if (!found) throw new Error(`query builder: ${selector} is missing`);
  return found;
}

function make<K extends keyof HTMLElementTagNameMap>(tag: K, text?: string, className?: string): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (text !== undefined) el.textContent = text;
  if (className) el.className = className;
  return el;
}

function startBuilder(root: HTMLElement): void {
  const tables = JSON.parse(root.dataset.tables ?? '[]') as TableInfo[];
  const table = element<HTMLSelectElement>(root, '#qb-table');
  const sql = element<HTMLTextAreaElement>(root, '#qb-sql');
  const format = element<HTMLSelectElement>(root, '#qb-format');
  const callback = element<HTMLInputElement>(root, '#qb-callback');
  const key = element<HTMLInputElement>(root, '#qb-key');
  const url = element<HTMLElement>(root, '#qb-url');
  const list = element<HTMLElement>(root, '#qb-examples');
  const result = element<HTMLElement>(root, '#qb-result');
  const columnList = element<HTMLDataListElement>(root, '#qb-columns');
  const form = element<HTMLFormElement>(root, 'form');
  const atomInputs = Object.fromEntries(atomFields.map((f) => [f, element<HTMLInputElement>(root, `#qb-atom-${f}`)])) as Record<
    keyof AtomMapping,
    HTMLInputElement
  >;

  const request = (): ApiRequest => ({
    base: root.dataset.base ?? location.origin,
    scraper: root.dataset.scraper ?? '',
    format: format.value,
    kind: format.selectedOptions[0]?.dataset.kind === 'file' ? 'file' : 'rows',
    sql: sql.value,
    callback: callback.value.trim(),
  });
  const currentTable = () => tables.find((t) => t.name === table.value) ?? tables[0];
  const mapping = (): AtomMapping => ({
    title: atomInputs.title.value,
    content: atomInputs.content.value,
    link: atomInputs.link.value,
    date: atomInputs.date.value,
  });

  function showExamples(): void {
    const req = request();
    url.textContent = requestUrl(req);
    const open = new Set([...list.querySelectorAll<HTMLDetailsElement>('details[open]')].map((d) => d.dataset.example));
    list.replaceChildren(
      ...examples(req, key.value.trim() || keyPlaceholder).map((example) => {
        const details = make('details');
        details.dataset.example = example.id;
        details.open = open.has(example.id);
        const code = make('code', example.code);
        code.dataset.example = example.id;
        const pre = make('pre');
        pre.append(code);
        details.append(make('summary', example.label), pre);
        return details;
      }),
    );
    for (const el of root.querySelectorAll<HTMLElement>('[data-for-format]')) el.hidden = el.dataset.forFormat !== req.format;
    for (const el of root.querySelectorAll<HTMLElement>('[data-for-kind]')) el.hidden = el.dataset.forKind !== req.kind;
  }

  function fillColumns(): void {
    const columns = currentTable()?.columns.map((c) => c.name) ?? [];
    columnList.replaceChildren(...columns.map((c) => Object.assign(make('option'), { value: `"${c.replace(/"/g, '""')}"` })));
  }

  function applyAtomMapping(): void {
    sql.value = withAtomColumns(sql.value, mapping(), table.value);
    showExamples();
  }

  table.addEventListener('change', () => {
    sql.value = firstRowsSql(table.value);
    fillColumns();
    const guess = guessAtomMapping(currentTable()?.columns.map((c) => c.name) ?? []);
    for (const f of atomFields) atomInputs[f].value = guess[f];
    if (format.value === 'atom') applyAtomMapping();
    else showExamples();
  });
  format.addEventListener('change', () => {
    if (format.value === 'atom') applyAtomMapping();
    else showExamples();
  });
  for (const input of Object.values(atomInputs)) input.addEventListener('input', applyAtomMapping);
  for (const input of [sql, callback, key]) input.addEventListener('input', showExamples);

  element<HTMLButtonElement>(root, '#qb-run').addEventListener('click', () => void run(request(), false));
  // Enter in a field runs the query rather than reloading the page (which would lose the key).
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void run(request(), false);
  });
  element<HTMLButtonElement>(root, '#qb-download').addEventListener(
    'click',
    () => void run({ ...request(), format: 'sqlite', kind: 'file' }, true),
  );

  // Signed in: one click makes a read-only key of the visitor's own (the page holds none) and fills it in.
  const newKey = root.querySelector<HTMLButtonElement>('#qb-new-key');
  newKey?.addEventListener('click', () => void fillNewKey(newKey));

  async function fillNewKey(button: HTMLButtonElement): Promise<void> {
    button.disabled = true;
    try {
      const response = await fetch('/account/builder-key', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-csrf-token': button.dataset.csrf ?? '' },
        body: new URLSearchParams({ scraper: root.dataset.scraper ?? '' }),
      });
      const body = (await response.json()) as { key?: string; error?: string };
      if (!response.ok || !body.key) throw new Error(body.error ?? `${response.status}`);
      key.value = body.key;
      showExamples();
    } catch (err) {
      showError(`No key was made: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      button.disabled = false;
    }
  }

  async function run(req: ApiRequest, download: boolean): Promise<void> {
    const apiKey = key.value.trim();
    if (apiKey === '') {
      showError('Paste your API key first.');
      key.focus();
      return;
    }
    result.replaceChildren(make('p', 'Running…', 'muted'));
    try {
      // Run shows what a program gets; JSONP is for <script> tags, so the callback is left out.
      // Same origin as this page (a relative URL), which is all its Content-Security-Policy allows.
      const response = await fetch(requestUrl({ ...req, base: '', callback: '' }), { headers: { 'X-API-Key': apiKey } });
      if (!response.ok) {
        const body = await response.text();
        let message = body;
        try {
          message = (JSON.parse(body) as { error: string }).error;
        } catch {
          /* not JSON: show it as it is */
        }
        showError(`${response.status}: ${message}`);
      } else if (req.kind === 'file') {
        showFile(await response.blob(), fileName(req), download);
      } else if (req.format === 'json') {
        showRows((await response.json()) as Record<string, unknown>[]);
      } else if (req.format === 'ndjson') {
        showRows(
          (await response.text())
            .split('\n')
            .filter((l) => l !== '')
            .map((l) => JSON.parse(l) as Record<string, unknown>),
        );
      } else {
        showText(await response.text());
      }
    } catch (err) {
      showError(`The request failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  function showError(message: string): void {
    const p = make('p', message, 'error');
    p.setAttribute('role', 'alert');
    result.replaceChildren(p);
  }

  function showRows(rows: Record<string, unknown>[]): void {
    const summary = make(
      'p',
      `${rows.length} ${rows.length === 1 ? 'row' : 'rows'}${rows.length > shownRows ? `, the first ${shownRows} shown` : ''}.`,
      'muted',
    );
    const columns = [...new Set(rows.slice(0, shownRows).flatMap((r) => Object.keys(r)))];
    const tableEl = make('table', undefined, 'data');
    const head = make('tr');
    head.append(...columns.map((c) => make('th', c)));
    tableEl.append(make('thead'), make('tbody'));
    tableEl.tHead!.append(head);
    for (const row of rows.slice(0, shownRows)) {
      const tr = make('tr');
      tr.append(
        ...columns.map((c) => {
          const v = row[c];
          return v === null
            ? make('td', 'null', 'null')
            : make('td', typeof v === 'string' ? v : JSON.stringify(v), typeof v === 'number' ? 'num' : undefined);
        }),
      );
      tableEl.tBodies[0]!.append(tr);
    }
    const scroll = make('div', undefined, 'table-scroll');
    scroll.append(tableEl);
    result.replaceChildren(summary, scroll);
  }

  function showText(text: string): void {
    const more =
      text.length > shownChars ? ` (the first ${shownChars.toLocaleString()} characters of ${text.length.toLocaleString()})` : '';
    result.replaceChildren(make('p', `Result${more}:`, 'muted'), make('pre', text.slice(0, shownChars)));
  }

  function showFile(blob: Blob, name: string, save: boolean): void {
    const link = Object.assign(make('a', `Save ${name}`), { href: URL.createObjectURL(blob), download: name });
    const p = make('p', `${blob.size.toLocaleString()} bytes received. `);
    p.append(link);
    result.replaceChildren(p);
    if (save) link.click();
  }

  for (const el of root.querySelectorAll<HTMLElement>('[data-needs-js]')) el.hidden = false;
  for (const el of root.querySelectorAll<HTMLElement>('[data-without-js]')) el.hidden = true;
  fillColumns();
  showExamples();
}

for (const root of document.querySelectorAll<HTMLElement>('[data-query-builder]')) startBuilder(root);
