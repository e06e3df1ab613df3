/**
 * Loaded into every Siphon process by `npm run profile` (NODE_OPTIONS=--import), never otherwise.
 * `--cpu-prof` writes its profile only when a process exits by itself, and Siphon ends its query
 * processes with SIGKILL; so a query process (the one kind with an IPC channel) here exits on
 * SIGTERM, which profile.ts sends it once the load is over.
 */
if (process.send) process.on('SIGTERM', () => process.exit(0));
