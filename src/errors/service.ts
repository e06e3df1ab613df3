import { make } from './siphon-error.js';

/** The service's own condition, not the client's request (5xx). */
export const serviceErrors = {
  storageFull: () =>
    make('SIPHON_ERR_STORAGE_FULL', 507, 'The server has no room left to store this data. Nothing was changed; try again later.'),
  busy: () => make('SIPHON_ERR_BUSY', 503, 'Too many queries are waiting. Try again in a few seconds.', 5),
  queueTimeout: (seconds: number) =>
    make(
      'SIPHON_ERR_QUEUE_TIMEOUT',
      503,
      `The query waited ${seconds} s for a query process without getting one. Try again in a few seconds.`,
      5,
    ),
  downloadsBacklog: () =>
    make(
      'SIPHON_ERR_DOWNLOADS_BACKLOG',
      503,
      "Downloads cannot be recorded right now (the server's disk is full?), so no data is served. Try again later.",
      30,
    ),
  unavailable: () => make('SIPHON_ERR_UNAVAILABLE', 503, 'The service is shutting down or not ready.'),
  internal: () => make('SIPHON_ERR_INTERNAL', 500, 'Something went wrong on our side. It has been logged.'),
} as const;
