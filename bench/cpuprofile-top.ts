/**
 * Reads V8 `.cpuprofile` files (as `node --cpu-prof` or profile-preload.ts write them) and sums self
 * time: by function, and by where the code lives (a file of ours, an npm package, a part of Node),
 * idle time left out. Used by
 * profile.ts; also runs alone: `node dist/bench/cpuprofile-top.js [--per N] FILE...`.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface SelfTime {
  name: string;
  /** Microseconds of CPU spent in it, not in what it called. */
  us: number;
}

export interface ProfileSummary {
  /** Sampled CPU time in µs, idle left out. */
  totalUs: number;
  functions: SelfTime[];
  places: SelfTime[];
}

/** Where a function lives: `src/http/server.ts`, `fastify`, `node:_http_server`. */
function place(url: string): string {
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (m) return m[1]!;
  const ours = /\/dist\/((?:src|bench)\/.*)\.js$/.exec(url);
  if (ours) return `${ours[1]!}.ts`;
  if (url.startsWith('node:')) return url.replace(/^node:internal\//, 'node:');
  return path.basename(url);
}

function add(map: Map<string, number>, key: string, us: number): void {
  map.set(key, (map.get(key) ?? 0) + us);
}

export function summarise(files: string[]): ProfileSummary {
  const functions = new Map<string, number>();
  const places = new Map<string, number>();
  let totalUs = 0;
  for (const file of files) {
    const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
    const byId = new Map(profile.nodes.map((node) => [node.id, node]));
    const parent = new Map<number, ProfileNode>();
    for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node);
    /** The nearest JS function that called a native one (a write to a socket, a hash…): `name place:line`, and its place. */
    const caller = (node: ProfileNode): { name: string; where: string } | undefined => {
      for (let p = parent.get(node.id); p; p = parent.get(p.id)) {
        const f = p.callFrame;
        if (f.url) return { name: `${f.functionName || '(anonymous)'} ${place(f.url)}:${f.lineNumber + 1}`, where: place(f.url) };
      }
      return undefined;
    };
    for (let i = 0; i < profile.samples.length; i++) {
      const node = byId.get(profile.samples[i]!)!;
      const frame = node.callFrame;
      // A sample's delta is the time since the previous sample, so it belongs to this one's node.
      const us = profile.timeDeltas[i] ?? 0;
      if (frame.functionName === '(idle)') continue;
      const calledBy = frame.url ? undefined : caller(node);
      // The profiler's own start and stop (profile-preload.ts) are not Siphon's work.
      if (calledBy?.where === 'node:inspector') continue;
      totalUs += us;
      const name = frame.functionName || '(anonymous)';
      if (frame.url) add(functions, `${name} ${place(frame.url)}:${frame.lineNumber + 1}`, us);
      else add(functions, calledBy ? `${name} (native) ← ${calledBy.name}` : `${name} (V8)`, us);
      // Native work counts where the JS that asked for it lives.
      add(places, frame.url ? place(frame.url) : (calledBy?.where ?? '(V8: garbage collector, compiler…)'), us);
    }
  }
  const sorted = (m: Map<string, number>) => [...m].map(([name, us]) => ({ name, us })).sort((a, b) => b.us - a.us);
  return { totalUs, functions: sorted(functions), places: sorted(places) };
}

/** The top `count` entries as text lines: share of the CPU time, and µs per `unit` when `per` is given. */
export function formatTop(title: string, entries: SelfTime[], totalUs: number, count: number, per?: { n: number; unit: string }): string {
  const lines = [title];
  for (const e of entries.slice(0, count)) {
    const share = `${((e.us / totalUs) * 100).toFixed(1).padStart(5)} %`;
    const each = per ? `  ${(e.us / per.n).toFixed(per.n > 100_000 ? 3 : 1).padStart(8)} µs/${per.unit}` : '';
    lines.push(`${share}${each}  ${e.name}`);
  }
  return lines.join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const perAt = args.indexOf('--per');
  const per = perAt === -1 ? undefined : { n: Number(args[perAt + 1]), unit: 'unit' };
  const files = args.filter((_, i) => i !== perAt && i !== perAt + 1);
  if (files.length === 0) {
    process.stderr.write('usage: node dist/bench/cpuprofile-top.js [--per N] FILE.cpuprofile...\n');
    process.exit(2);
  }
  const s = summarise(files);
  process.stdout.write(
    `${formatTop(`CPU ${(s.totalUs / 1000).toFixed(0)} ms, by function (self time)`, s.functions, s.totalUs, 25, per)}\n\n`,
  );
  process.stdout.write(`${formatTop('by place', s.places, s.totalUs, 15, per)}\n`);
}
