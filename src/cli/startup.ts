import type { Log } from '../log/logger.js';

export interface Started {
  base: string;
  dataDir: string;
  metricsUrl: string | undefined;
  /** With `--demo`: the demo scraper's name, its read-only key, and whether a writable key it replaced was revoked. */
  demo?: { scraper: string; key: string; replacedWritable: boolean };
}

/** The demo's ready-to-paste request: three rows of its data as JSON. */
const demoCurl = (base: string, scraper: string, key: string) =>
  `curl '${base}/${scraper}/data.json?key=${key}&query=select+title%2C+date+from+%22data%22+limit+3'`;

const replacedWarning =
  'The demo key kept by an earlier version could publish data: it is revoked, and replaced by the read-only key below.';

/**
 * What `serve` says once it listens: where it serves which folder, its pages, the API, the metrics
 * and, with `--demo`, the demo scraper, its key and a curl line that uses it. To a machine (JSON) as
 * log records with these as fields; to a person (pretty) as lines, one address a line and the curl
 * line alone on its own, so that it pastes as it is. Written at every log level but `silent`.
 */
export function announceStart(log: Log, started: Started): void {
  if (log.logger.level === 'silent') return;
  if (log.format === 'pretty') log.text(startLines(started));
  else startRecords(log, started);
}

function startRecords(log: Log, { base, dataDir, metricsUrl, demo }: Started): void {
  const startup = log.logger.child({}, { level: 'info' });
  startup.info(
    {
      url: base,
      dataDir,
      home: `${base}/`,
      docs: `${base}/docs`,
      api: `${base}/{owner}/{scraper}/data.{format}?key={key}&query={sql}`,
      metrics: metricsUrl,
    },
    `Siphon is serving ${dataDir} at ${base}`,
  );
  if (!demo) return;
  if (demo.replacedWritable) startup.warn(replacedWarning);
  // The one key ever logged, on purpose: it can only read the demo's public data, and it is how a newcomer tries the API.
  startup.info(
    { page: `${base}/${demo.scraper}`, demoKey: demo.key, curl: demoCurl(base, demo.scraper, demo.key) },
    'Demo scraper and its read-only key, for trying Siphon locally',
  );
}

function startLines({ base, dataDir, metricsUrl, demo }: Started): string {
  const lines = [
    `Siphon is serving ${dataDir} at ${base}`,
    `  Scrapers    ${base}/`,
    `  API docs    ${base}/docs`,
    `  Data API    ${base}/{owner}/{scraper}/data.{format}?key={key}&query={sql}`,
  ];
  if (metricsUrl) lines.push(`  Metrics     ${metricsUrl}`);
  if (demo) {
    lines.push(`  Demo        ${base}/${demo.scraper}`, `  Demo key    ${demo.key} (read-only: it queries, never publishes)`);
    if (demo.replacedWritable) lines.push('', replacedWarning);
    lines.push('', 'Try the API with the demo key:', '', `  ${demoCurl(base, demo.scraper, demo.key)}`);
  }
  lines.push('', 'Requests are logged below, one a line (--log-format json for JSON records). Ctrl-C stops.', '');
  return `${lines.join('\n')}\n`;
}
