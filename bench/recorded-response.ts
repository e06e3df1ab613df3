/** A real Siphon response, written down for the bare node:http baseline (bare-server.ts) to repeat. */
export interface RecordedResponse {
  status: number;
  /** Raw header pairs as received, less those Node writes itself. */
  headers: [string, string][];
  body: string;
  chunked: boolean;
}

/** Headers Node's http server writes on its own; copying them would send them twice. */
export const nodeWrittenHeaders = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);
