/**
 * Loaded into every Siphon process by `npm run profile` (NODE_OPTIONS=--import), never otherwise.
 * Node 20 does not take `--cpu-prof` from NODE_OPTIONS, the only way to reach the query processes,
 * and `--cpu-prof` profiles from start to exit, which would count each process's start-up (and the
 * pool's replacements) against the load. So this drives V8's sampling profiler through the
 * inspector: the first SIGUSR2 starts it, the second stops it and writes
 * `$SIPHON_PROFILE_DIR/<pid>.cpuprofile` (the inspector answers synchronously). profile.ts sends
 * both around the measured load only.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import path from 'node:path';

const dir = process.env.SIPHON_PROFILE_DIR;
if (dir) {
  const session = new Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval: 1000 });
  let running = false;
  process.on('SIGUSR2', () => {
    if (!running) {
      session.post('Profiler.start');
      running = true;
      return;
    }
    running = false;
    session.post('Profiler.stop', (err, result) => {
      if (!err) writeFileSync(path.join(dir, `${process.pid}.cpuprofile`), JSON.stringify(result.profile));
    });
  });
}
