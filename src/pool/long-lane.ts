import type { QueryRun } from './query-run.js';

/**
 * Long queries (working longer than `longAfterMs`): they run at a lower CPU priority, and at most
 * `size` of them at once; one more is parked (frozen, its clock stopped) until one of them ends.
 * With a pool larger than `size`, the rest of the processes stay for short queries.
 */
export class LongLane {
  private readonly running = new Set<QueryRun>();
  private readonly parked: QueryRun[] = [];

  constructor(private readonly size: number) {}

  get runningCount(): number {
    return this.running.size;
  }

  get parkedCount(): number {
    return this.parked.length;
  }

  /** `run` has become a long query: it runs in the lane, or is parked until there is room. */
  enter(run: QueryRun): void {
    if (this.running.size < this.size) {
      this.running.add(run);
      run.lowerPriority();
    } else {
      this.parked.push(run);
      run.park();
    }
  }

  /** `run` holds no process any more: its place goes to the first parked, if it had one. */
  leave(run: QueryRun): void {
    if (this.running.delete(run)) {
      const next = this.parked.shift();
      if (next) {
        this.running.add(next);
        next.unpark();
      }
    } else {
      const i = this.parked.indexOf(run);
      if (i !== -1) this.parked.splice(i, 1);
    }
  }
}
