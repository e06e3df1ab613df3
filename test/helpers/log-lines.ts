/** Reading what a server logged: JSON records, one a line. */

export type LogRecord = Record<string, unknown> & { msg: string; level: number };

/** Every whole line of `text` that is a JSON record, parsed (a line still being written is left out). */
export function logRecords(text: string): LogRecord[] {
  return text
    .split('\n')
    .slice(0, -1)
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogRecord);
}

export interface RequestRecord extends LogRecord {
  reqId: string;
  method?: string;
  url?: string;
  route: string | null;
  status: number;
  code?: string;
  keyId?: number;
  durationMs: number;
  rows?: number | null;
  bytes?: number;
  cut?: string;
}

/** The one line each request is logged in. */
export function requestRecords(text: string): RequestRecord[] {
  return logRecords(text).filter((r): r is RequestRecord => r.msg === 'request');
}

/** The publishes refused so far, in order, by code and status, as logged. */
export function publishRefusals(text: string): { code: string; status: number }[] {
  return requestRecords(text)
    .filter((r) => r.method === 'PUT' && r.route === '/:owner/:scraper/data.sqlite' && r.code !== undefined)
    .map((r) => ({ code: r.code!, status: r.status }));
}

/** The demo's start-up record (`serve --demo`): its page, its read-only key and the curl line. */
export function demoRecord(text: string): { page: string; demoKey: string; curl: string } {
  const record = logRecords(text).find((r) => typeof r.demoKey === 'string');
  if (!record) throw new Error(`no demo record in:\n${text}`);
  return record as unknown as { page: string; demoKey: string; curl: string };
}

export const demoKey = (text: string) => demoRecord(text).demoKey;
