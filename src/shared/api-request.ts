/**
 * @module The query builder's model: a data API request, its URL and ready-to-run examples in
 * several languages. Runs in the browser (served as an ES module, so it imports only its neighbours in
 * shared/) and on the server, which renders the same examples into the page so it reads fine without JavaScript.
 */
import { quoteIdentifier } from './sql-names.js';

export interface ApiRequest {
  /** Where the API answers, e.g. `http://127.0.0.1:3000`. */
  base: string;
  /** `owner/scraper`. */
  scraper: string;
  format: string;
  /** `file` formats (sqlite) send the whole database and take no query. */
  kind: 'rows' | 'file';
  sql: string;
  /** JSONP callback name; only used with json. */
  callback: string;
}

export interface Example {
  id: string;
  label: string;
  code: string;
}

/** Shown in the examples until the visitor pastes a key of their own. */
export const keyPlaceholder = 'YOUR_API_KEY';
const defaultCallback = 'showRows';

/** The query the builder starts with, and the one the scraper page previews each table with. */
export function firstRowsSql(table: string): string {
  return `select * from ${quoteIdentifier(table)} limit 10`;
}

function usesCallback(req: ApiRequest): boolean {
  return req.format === 'json' && req.callback !== '';
}

/**
 * The request URL, URL-encoded as a form (spaces as `+`). The key is left out unless asked for:
 * it belongs in the X-API-Key header, and only JSONP (which cannot send headers) needs it here.
 */
export function requestUrl(req: ApiRequest, extra: Record<string, string> = {}): string {
  const params = new URLSearchParams();
  if (req.kind === 'rows') params.set('query', req.sql);
  if (usesCallback(req)) params.set('callback', req.callback);
  for (const [name, value] of Object.entries(extra)) params.set(name, value);
  const query = params.toString();
  return `${endpoint(req)}${query ? `?${query}` : ''}`;
}

/** The URL without its query string. */
function endpoint(req: ApiRequest): string {
  return `${req.base}/${req.scraper}/data.${req.format}`;
}

/** The file name a download of this request is saved as (the server's Content-Disposition name). */
export function fileName(req: ApiRequest): string {
  return `${req.scraper.replace('/', '-')}.${req.format}`;
}

const shell = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
/** JSON string syntax is also valid Python, JavaScript and R string syntax. */
const str = (s: string) => JSON.stringify(s);
/** Ruby's single-quoted strings, so `#{…}` in the data is never interpolated. */
const rubyStr = (s: string) => `'${s.replace(/[\\']/g, (c) => `\\${c}`)}'`;
const attr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

function curl(req: ApiRequest, key: string): string {
  const save = req.kind === 'file' ? ` -o ${shell(fileName(req))}` : '';
  return `curl --fail-with-body -H ${shell(`X-API-Key: ${key}`)}${save} ${shell(requestUrl(req))}`;
}

function pythonRequests(req: ApiRequest, key: string): string {
  const params = req.kind === 'rows' ? `    params={"query": ${str(req.sql)}},\n` : '';
  const use =
    req.format === 'json'
      ? 'print(response.json())'
      : req.kind === 'file'
        ? `with open(${str(fileName(req))}, "wb") as file:\n    file.write(response.content)`
        : 'print(response.text, end="")';
  return `# pip install requests
import requests

# Keep your key secret: send it in a header, not in the URL.
response = requests.get(
    ${str(endpoint(req))},
${params}    headers={"X-API-Key": ${str(key)}},
)
if not response.ok:
    raise SystemExit(f"{response.status_code}: {response.json()['error']}")
${use}`;
}

function pythonStandardLibrary(req: ApiRequest, key: string): string {
  const read =
    req.format === 'json'
      ? 'rows = json.load(response)'
      : req.kind === 'file'
        ? 'data = response.read()'
        : 'text = response.read().decode("utf-8")';
  const use =
    req.format === 'json'
      ? 'print(rows)'
      : req.kind === 'file'
        ? `with open(${str(fileName(req))}, "wb") as file:\n    file.write(data)`
        : 'print(text, end="")';
  return `import json
import urllib.error
import urllib.request

request = urllib.request.Request(
    ${str(requestUrl({ ...req, callback: '' }))},
    headers={"X-API-Key": ${str(key)}},
)
try:
    with urllib.request.urlopen(request) as response:
        ${read}
except urllib.error.HTTPError as error:
    raise SystemExit(f"{error.code}: {json.load(error)['error']}")
${use}`;
}

function javascriptFetch(req: ApiRequest, key: string): string {
  const use =
    req.format === 'json'
      ? 'const rows = await response.json();\nconsole.log(rows);'
      : req.kind === 'file'
        ? 'const database = await response.blob();\nconsole.log(database.size, "bytes");'
        : 'const text = await response.text();\nconsole.log(text);';
  return `// Works from any web page (CORS) and in Node.js 18+.
const response = await fetch(${str(requestUrl({ ...req, callback: '' }))}, {
  headers: { "X-API-Key": ${str(key)} },
});
if (!response.ok) throw new Error((await response.json()).error);
${use}`;
}

function javascriptJsonp(req: ApiRequest, key: string): string {
  const callback = req.callback || defaultCallback;
  const url = requestUrl({ ...req, callback }, { key });
  // A dotted callback names a function inside objects that must already exist.
  const define = callback.includes('.') ? `${callback} = function (rows) {` : `function ${callback}(rows) {`;
  return `<!-- JSONP cannot send headers, so the key is in the URL: anyone who can see
     this page can read it. Use a key you can revoke (siphon key create NAME --read-only). -->
<script>
  ${define}
    if (rows.error) return console.error(rows.status, rows.error);
    console.log(rows);
  }
</script>
<script src="${attr(url)}"></script>`;
}

function r(req: ApiRequest, key: string): string {
  const url = str(requestUrl({ ...req, callback: '' }));
  const headers = `headers = c("X-API-Key" = ${str(key)})`;
  switch (req.format) {
    case 'json':
      return `# install.packages("jsonlite")\nrows <- jsonlite::fromJSON(paste(readLines(url(${url}, ${headers}), warn = FALSE), collapse = "\\n"))\nprint(rows)`;
    case 'csv':
      return `rows <- read.csv(url(${url}, ${headers}))\nprint(rows)`;
    case 'ndjson':
      return `# install.packages("jsonlite")\nrows <- jsonlite::stream_in(url(${url}, ${headers}))\nprint(rows)`;
    default:
      return req.kind === 'file'
        ? `download.file(${url}, ${str(fileName(req))}, mode = "wb", ${headers})`
        : `cat(readLines(url(${url}, ${headers}), warn = FALSE), sep = "\\n")`;
  }
}

function ruby(req: ApiRequest, key: string): string {
  const use =
    req.format === 'json'
      ? 'p JSON.parse(response.body)'
      : req.kind === 'file'
        ? `File.binwrite(${rubyStr(fileName(req))}, response.body)`
        : 'puts response.body';
  return `require "json"
require "net/http"

uri = URI(${rubyStr(requestUrl({ ...req, callback: '' }))})
request = Net::HTTP::Get.new(uri)
request["X-API-Key"] = ${rubyStr(key)}
response = Net::HTTP.start(uri.hostname, uri.port, use_ssl: uri.scheme == "https") { |http| http.request(request) }
abort "#{response.code}: #{JSON.parse(response.body)["error"]}" unless response.is_a?(Net::HTTPSuccess)
${use}`;
}

/** Every example for this request; `key` is the visitor's own, or the placeholder. */
export function examples(req: ApiRequest, key = keyPlaceholder): Example[] {
  const list: Example[] = [
    { id: 'curl', label: 'curl', code: curl(req, key) },
    { id: 'python', label: 'Python (requests)', code: pythonRequests(req, key) },
    { id: 'python-stdlib', label: 'Python (standard library only)', code: pythonStandardLibrary(req, key) },
    { id: 'javascript', label: 'JavaScript (fetch)', code: javascriptFetch(req, key) },
  ];
  if (req.format === 'json') list.push({ id: 'jsonp', label: 'JavaScript (JSONP, in an HTML page)', code: javascriptJsonp(req, key) });
  list.push({ id: 'r', label: 'R', code: r(req, key) }, { id: 'ruby', label: 'Ruby', code: ruby(req, key) });
  return list;
}

/** SQL expressions for the four columns an Atom feed is made of. */
export interface AtomMapping {
  title: string;
  content: string;
  link: string;
  date: string;
}

export const atomFields = ['title', 'content', 'link', 'date'] as const;

/**
 * A first guess at the mapping: a column of the same name, else (for title and content) the first
 * columns, else an empty string (no link; the entry takes the feed's date).
 */
export function guessAtomMapping(columns: readonly string[]): AtomMapping {
  const named = (field: string) => columns.find((c) => c.toLowerCase() === field);
  const pick = (field: string, fallback: string | undefined) => {
    const column = named(field) ?? fallback;
    return column === undefined ? "''" : quoteIdentifier(column);
  };
  return {
    title: pick('title', columns[0]),
    content: pick('content', columns[1] ?? columns[0]),
    link: pick(
      'link',
      columns.find((c) => /url|link|href/i.test(c)),
    ),
    date: pick(
      'date',
      columns.find((c) => /date|time|_at$/i.test(c)),
    ),
  };
}

/**
 * The SQL with its select list replaced by the mapping (`… as title, … as content, …`), keeping
 * what follows `from`. SQL without a `select … from` becomes a query of `table`.
 */
export function withAtomColumns(sql: string, mapping: AtomMapping, table: string): string {
  const list = atomFields.map((f) => `${mapping[f].trim() || "''"} as ${f}`).join(', ');
  const rest = /^\s*select\s+[\s\S]*?\sfrom\s+([\s\S]*)$/i.exec(sql);
  return `select ${list} from ${rest ? rest[1] : `${quoteIdentifier(table)} limit 10`}`;
}
