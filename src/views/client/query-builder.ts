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
import { make, ResultView } from './query-result.js';

interface TableInfo {
  name: string;
  columns: { name: string }[];
}

function element<T extends HTMLElement>(root: ParentNode, selector: string): T {
  const found = root.querySelector<T>(selector);
  if (!found) throw new Error(`query builder: ${selector} is missing`);
  return found;
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
  const show = new ResultView(result);
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

  // The owner's "Save this query" saves the SQL as it is now, not as the page was rendered with.
  const save = root.querySelector<HTMLFormElement>('form.save-query');
  save?.addEventListener('submit', () => (element<HTMLInputElement>(save, 'input[name="sql"]').value = sql.value));

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
      show.error(`No key was made: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      button.disabled = false;
    }
  }

  async function run(req: ApiRequest, download: boolean): Promise<void> {
    const apiKey = key.value.trim();
    if (apiKey === '') {
      show.error('Paste your API key first.');
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
        show.error(`${response.status}: ${message}`);
      } else if (req.kind === 'file') {
        show.file(await response.blob(), fileName(req), download);
      } else if (req.format === 'json') {
        show.rows((await response.json()) as Record<string, unknown>[]);
      } else if (req.format === 'ndjson') {
        show.rows(
          (await response.text())
            .split('\n')
            .filter((l) => l !== '')
            .map((l) => JSON.parse(l) as Record<string, unknown>),
        );
      } else {
        show.text(await response.text());
      }
    } catch (err) {
      show.error(`The request failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  for (const el of root.querySelectorAll<HTMLElement>('[data-needs-js]')) el.hidden = false;
  for (const el of root.querySelectorAll<HTMLElement>('[data-without-js]')) el.hidden = true;
  fillColumns();
  showExamples();
}

for (const root of document.querySelectorAll<HTMLElement>('[data-query-builder]')) startBuilder(root);
