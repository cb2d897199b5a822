// The part of http_ece (the encrypted content coding of RFC 8188, no types of its own) the fake uses.
import type { Buffer } from "node:buffer";
import type { ECDH } from "node:crypto";

declare const ece: {
  decrypt(
    buffer: Buffer,
    params: { version: "aes128gcm"; privateKey: ECDH; authSecret: Buffer | string },
  ): Buffer;
};
export default ece;
