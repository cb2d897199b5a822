// Reads the frame headers of a client's WebSocket byte stream (RFC 6455 section 5.2) as it passes the
// connection gate, so a message larger than the panel accepts is refused on its header, before its
// payload is read. Deno's WebSocket has no size option and would buffer up to 64 MiB per message.

const OP_CONTINUATION = 0;
const OP_CLOSE = 8;

export class FrameLimiter {
  /** Header bytes of the frame being read (a header may be split across reads). */
  #head = new Uint8Array(14);
  #headLen = 0;
  /** Payload bytes of the current frame still to pass. */
  #payloadLeft = 0;
  /** Payload bytes of the current message so far (all its fragments). */
  #messageBytes = 0;
  #inMessage = false;
  /** Why the stream was refused, once it was. */
  refused: string | null = null;

  constructor(readonly maxMessageBytes: number) {}

  /** Reads `chunk`; false when it holds a frame the panel refuses (the chunk must then not be passed on). */
  feed(chunk: Uint8Array): boolean {
    if (this.refused) return false;
    let i = 0;
    while (i < chunk.length) {
      if (this.#payloadLeft > 0) {
        const n = Math.min(this.#payloadLeft, chunk.length - i);
        this.#payloadLeft -= n;
        i += n;
        continue;
      }
      this.#head[this.#headLen++] = chunk[i++];
      const need = this.#headerLength();
      if (need === null || this.#headLen < need) continue;
      if (!this.#frame()) return false;
      this.#headLen = 0;
    }
    return true;
  }

  /** The full header length once the first two bytes are known (null before). */
  #headerLength(): number | null {
    if (this.#headLen < 2) return null;
    const len7 = this.#head[1] & 0x7f;
    const masked = (this.#head[1] & 0x80) !== 0;
    return 2 + (len7 === 126 ? 2 : len7 === 127 ? 8 : 0) + (masked ? 4 : 0);
  }

  #frame(): boolean {
    const fin = (this.#head[0] & 0x80) !== 0;
    const opcode = this.#head[0] & 0x0f;
    const len7 = this.#head[1] & 0x7f;
    let length: number;
    if (len7 === 126) length = (this.#head[2] << 8) | this.#head[3];
    else if (len7 === 127) {
      const view = new DataView(this.#head.buffer, 2, 8);
      const high = view.getUint32(0);
      // Anything at or above 2^32 is far over any limit; avoid unsafe integers.
      length = high !== 0 ? Number.MAX_SAFE_INTEGER : view.getUint32(4);
    } else length = len7;
    if ((this.#head[1] & 0x80) === 0) return this.#refuse("an unmasked client frame");
    if (opcode >= OP_CLOSE) {
      if (length > 125 || !fin) return this.#refuse("a control frame over 125 bytes or fragmented");
    } else {
      if (opcode === OP_CONTINUATION ? !this.#inMessage : this.#inMessage) {
        return this.#refuse("a fragment out of order");
      }
      this.#messageBytes = (opcode === OP_CONTINUATION ? this.#messageBytes : 0) + length;
      if (this.#messageBytes > this.maxMessageBytes) {
        return this.#refuse(`a message of over ${this.maxMessageBytes} bytes`);
      }
      this.#inMessage = !fin;
    }
    this.#payloadLeft = length;
    return true;
  }

  #refuse(why: string): false {
    this.refused = why;
    return false;
  }
}
