/** A bound on the total size of a cache's entries, as well as on their count. */
export interface SizeBound<K, V> {
  maxSize: number;
  sizeOf(key: K, value: V): number;
}

interface Entry<K, V> {
  key: K;
  value: V;
  /** Its neighbours in the order of use: `older` towards the entry dropped next. */
  older: Entry<K, V> | undefined;
  newer: Entry<K, V> | undefined;
}

/**
 * A map that keeps at most `capacity` entries (and, given a size bound, at most that total size),
 * dropping the least recently used ones. Its entries are linked in the order of use, so a hit moves
 * one to the newest end and a new entry drops the oldest without a search. A Map alone, keeping
 * that order by insertion, made both dear: a hit moved an entry by deleting and inserting it again,
 * and the oldest key was found by a new iterator, which walks every hole that deletions left at the
 * front of V8's table (up to half its size, until it is compacted): ~2.5 µs a dropped entry at 4,096
 * entries, more than the hash the ETags' cache saves. An iterator
 * kept between evictions walks them once, but holds every table V8 has since replaced: 53 MB after a
 * million hits with no eviction. An entry larger than the whole bound is not kept.
 */
export class LruCache<K, V> {
  private readonly entries = new Map<K, Entry<K, V>>();
  private oldest: Entry<K, V> | undefined;
  private newest: Entry<K, V> | undefined;
  private size = 0;

  constructor(
    private readonly capacity: number,
    private readonly bound?: SizeBound<K, V>,
  ) {}

  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry !== this.newest) {
      this.unlink(entry);
      this.link(entry);
    }
    return entry.value;
  }

  set(key: K, value: V): void {
    this.delete(key);
    const size = this.bound?.sizeOf(key, value) ?? 0;
    if (this.bound && size > this.bound.maxSize) return;
    const entry: Entry<K, V> = { key, value, older: undefined, newer: undefined };
    this.entries.set(key, entry);
    this.link(entry);
    this.size += size;
    while (this.entries.size > this.capacity || (this.bound && this.size > this.bound.maxSize)) this.delete(this.oldest!.key);
  }

  clear(): void {
    this.entries.clear();
    this.oldest = this.newest = undefined;
    this.size = 0;
  }

  delete(key: K): void {
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    this.entries.delete(key);
    this.unlink(entry);
    this.size -= this.bound?.sizeOf(key, entry.value) ?? 0;
  }

  /** Puts an unlinked entry at the newest end. */
  private link(entry: Entry<K, V>): void {
    entry.older = this.newest;
    if (this.newest) this.newest.newer = entry;
    else this.oldest = entry;
    this.newest = entry;
  }

  private unlink(entry: Entry<K, V>): void {
    if (entry.older) entry.older.newer = entry.newer;
    else this.oldest = entry.newer;
    if (entry.newer) entry.newer.older = entry.older;
    else this.newest = entry.older;
    entry.older = entry.newer = undefined;
  }
}
