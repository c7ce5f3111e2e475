/**
 * Answers kept in memory up to a number of bytes, least recently used
 * dropped first. An answer too large to be worth keeping is not kept.
 */
export class ByteBoundedLru<V> {
  private readonly entries = new Map<string, V>();
  private bytes = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly maxEntryBytes: number,
    private readonly sizeOf: (value: V) => number,
  ) {}

  has(key: string): boolean {
    return this.entries.has(key);
  }

  get(key: string): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      // Maps iterate in insertion order: a hit moves to the end, the least recently used stays first.
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  set(key: string, value: V): void {
    const size = this.sizeOf(value);
    this.delete(key);
    if (size > this.maxEntryBytes) return;
    this.entries.set(key, value);
    this.bytes += size;
    for (const [oldKey, old] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldKey);
      this.bytes -= this.sizeOf(old);
    }
  }

  delete(key: string): void {
    const previous = this.entries.get(key);
    if (previous === undefined) return;
    this.entries.delete(key);
    this.bytes -= this.sizeOf(previous);
  }

  clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }

  /** Bytes held now. */
  get size(): number {
    return this.bytes;
  }
}
