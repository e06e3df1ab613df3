/**
 * The flags Node runs Siphon with: `bin/siphon`'s first line names them, and `npm start` passes them
 * too (a test holds both to this list). V8 takes them on the command line only, not from
 * NODE_OPTIONS.
 *
 * `--min-semi-space-size=8`: the server relays an export from its query processes in 64 KB chunks,
 * each in memory of its own outside V8's heap. With V8's default young generation (it starts at
 * 1 MB a half and grows only as the heap's own objects ask), that memory made V8 run a full
 * collection every 10–20 MB relayed, 37 in a 1M-row json export, more than half of the server's CPU
 * during it. Starting the young generation at 8 MB a half lets young collections free the chunks
 * instead: no full collection, and the server's CPU per export halved, for 8 MB more memory at most
 * (BENCHMARKS.md, fifth round).
 */
export const nodeFlags: readonly string[] = ['--min-semi-space-size=8'];
