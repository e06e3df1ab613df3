/** A bound on the total size of a cache's entries, as well as on their count. */
export interface SizeBound<K, V> {
  maxSize: number;
  sizeOf(key: K, value: V): number;
}

/**
 * A map that keeps at most `capacity` entries (and, given a size bound, at most that total size),
 * dropping the least recently used ones. A Map iterates in insertion order, so re-inserting an
 * entry on each hit keeps the oldest first. An entry larger than the whole bound is not kept.
 */
export class LruCache<K, V> {
  private readonly entries = new Map<K, V>();
  private size = 0;

  constructor(
    private readonly capacity: number,
    private readonly bound?: SizeBound<K, V>,
  ) {}

  get(key: K): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  set(key: K, value: V): void {
    this.delete(key);
    const size = this.bound?.sizeOf(key, value) ?? 0;
    if (this.bound && size > this.bound.maxSize) return;
    this.entries.set(key, value);
    this.size += size;
    while (this.entries.size > this.capacity || (this.bound && this.size > this.bound.maxSize)) {
      this.delete(this.entries.keys().next().value as K);
    }
  }

  clear(): void {
    this.entries.clear();
    this.size = 0;
  }

  delete(key: K): void {
    const value = this.entries.get(key);
    if (value === undefined) return;
    this.entries.delete(key);
    this.size -= this.bound?.sizeOf(key, value) ?? 0;
  }
}
