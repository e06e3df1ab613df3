/** A bound on the total size of a cache's entries, as well as on their count. */
export interface SizeBound<K, V> {
  maxSize: number;
  sizeOf(key: K, value: V): number;
}

interface Entry<V> {
  value: V;
  /** When it was last put at the newest end: the count of moves and inserts at that time. */
  stamp: number;
}

/**
 * A map that keeps at most `capacity` entries (and, given a size bound, at most that total size),
 * dropping the least recently used ones. A Map iterates in insertion order, so re-inserting an
 * entry keeps the oldest first. A hit re-inserts only an entry that has aged past half the
 * capacity: one among the newer half is far from being dropped, and re-inserting on every hit (a
 * delete and a set) was most of a hit's cost. An entry larger than the whole bound is not kept.
 */
export class LruCache<K, V> {
  private readonly entries = new Map<K, Entry<V>>();
  /**
   * The keys from the oldest on, one iterator kept from one eviction to the next. A new iterator's
   * first key is found past every hole that deletions left at the front of V8's table (up to half
   * its size, until it is compacted): ~2.5 µs an eviction at 4,096 entries, against ~0.7 this way
   * (BENCHMARKS.md, fifteenth round). A kept iterator has passed those holes once; whatever is ahead
   * of it is newer, re-inserted entries included, so its next key is always the oldest.
   */
  private oldest = this.entries.keys();
  private size = 0;
  private stamp = 0;

  constructor(
    private readonly capacity: number,
    private readonly bound?: SizeBound<K, V>,
  ) {}

  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (this.stamp - entry.stamp >= this.capacity / 2) {
      this.entries.delete(key);
      this.entries.set(key, entry);
      entry.stamp = ++this.stamp;
    }
    return entry.value;
  }

  set(key: K, value: V): void {
    this.delete(key);
    const size = this.bound?.sizeOf(key, value) ?? 0;
    if (this.bound && size > this.bound.maxSize) return;
    this.entries.set(key, { value, stamp: ++this.stamp });
    this.size += size;
    while (this.entries.size > this.capacity || (this.bound && this.size > this.bound.maxSize)) this.dropOldest();
  }

  clear(): void {
    this.entries.clear();
    this.oldest = this.entries.keys();
    this.size = 0;
  }

  private dropOldest(): void {
    let next = this.oldest.next();
    // An iterator that once found no key left is done for good, whatever comes after: a new one then.
    if (next.done) next = (this.oldest = this.entries.keys()).next();
    this.delete(next.value as K);
  }

  delete(key: K): void {
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    this.entries.delete(key);
    this.size -= this.bound?.sizeOf(key, entry.value) ?? 0;
  }
}
