/**
 * A long body written straight into chunks of bytes, piece by piece. Made as
 * one string, such a body is made twice (its pieces joined, then the flat copy
 * the encoder reads), and all of it passes through the young generation of the
 * heap, which grows with what survives it: here only the pieces pass there.
 */

/** Bytes a chunk holds: a few socket writes' worth. */
const CHUNK_BYTES = 64 * 1024;

export class ByteChunks {
  private buf: Buffer;
  /** Where the part not yet taken begins, and where the next byte goes. */
  private start = 0;
  private pos = 0;
  private readonly full: Buffer[] = [];

  constructor(private readonly size = CHUNK_BYTES) {
    this.buf = Buffer.allocUnsafe(size);
  }

  /** Room for `bytes` more in the current chunk, so that what follows is never cut between two. */
  reserve(bytes: number): void {
    if (this.pos + bytes <= this.buf.length) return;
    if (this.pos > this.start) this.full.push(this.buf.subarray(this.start, this.pos));
    this.buf = Buffer.allocUnsafe(Math.max(this.size, bytes));
    this.start = 0;
    this.pos = 0;
  }

  bytes(piece: Uint8Array): void {
    this.buf.set(piece, this.pos);
    this.pos += piece.length;
  }

  /** Text as UTF-8; at most three bytes a UTF-16 unit must have been reserved. */
  text(text: string): void {
    const buf = this.buf;
    let pos = this.pos;
    // Short ASCII texts are copied here, a call into the encoder costing more than they do.
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c >= 0x80) {
        this.pos += buf.write(text, this.pos, 'utf8');
        return;
      }
      buf[pos++] = c;
    }
    this.pos = pos;
  }

  /** The chunks written since the last take; the current chunk's free part is used for what comes next. */
  take(): Buffer[] {
    if (this.pos > this.start) this.full.push(this.buf.subarray(this.start, this.pos));
    this.start = this.pos;
    return this.full.splice(0);
  }
}

/** The most bytes `text` takes as UTF-8. */
export const utf8Bound = (text: string): number => text.length * 3;
