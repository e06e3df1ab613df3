/**
 * The flags Node runs Siphon with: `bin/siphon`'s first line names them, and `npm start` passes them
 * too (a test holds both to this list). V8 takes them on the command line only, not from
 * NODE_OPTIONS.
 *
 * `--initial-old-space-size=32`: the server relays bodies in 64 KB chunks, each in memory of its
 * own outside V8's heap, and holds up to 16 MB of them for a split export's ranges ahead; counted
 * towards V8's limit for a full collection, they made V8 run one every few MB relayed (23–37 in a
 * 1M-row json export, up to half of the server's CPU during it). Letting the old generation start
 * at 32 MB leaves them to die first: a third less of the server's CPU per export (64 MB did no
 * better, and held more garbage). `--min-semi-space-size=8` did the same through the young
 * generation but spread every request's allocations over 16 MB, out of the caches: 304s 7–9 %
 * slower. A query's output is read into buffers used again (pool/relay-buffers.ts), so for an
 * uncompressed export or a 304 the flag changes no CPU measurably; it still counts for the chunks
 * of a data file's download and brotli's output, which are new memory each.
 */
export const nodeFlags: readonly string[] = ['--initial-old-space-size=32'];
