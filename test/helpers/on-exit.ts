/**
 * Work to do when a test file's process ends, passed or failed, or stopped by the runner with
 * SIGTERM (a file past its timeout): only synchronous work runs then.
 */
const tasks: (() => void)[] = [];
let installed = false;

export function onExit(task: () => void): void {
  tasks.push(task);
  if (installed) return;
  installed = true;
  process.once('SIGTERM', () => process.exit(143));
  // Last registered first, as node:test runs after() hooks: a process goes before its folder.
  process.on('exit', () => {
    for (const run of [...tasks].reverse()) run();
  });
}
