// Codec links: how the Temporal UI in a browser reaches the codec endpoint as an operator. The UI
// (as shipped with the Temporal CLI) sends no credential of ours: it POSTs to `<endpoint>/decode`
// with only Content-Type and X-Namespace. So an operator mints a link whose path carries a
// short-lived signed token and pastes it into the UI's codec server setting (kept in that browser
// only). The token is stateless: HMAC over the operator's user id and expiry, with its own
// root-derived key. Every use re-checks that the account is still an operator.
// Format: `tcl_` + base64url(version 1 | user id (16 bytes) | expiry (u32 seconds) | mac (16 bytes)).
import { createHmac, timingSafeEqual, type KeyObject } from 'node:crypto';

export const CODEC_LINK_PREFIX = 'tcl_';
const VERSION = 1;
const MAC_BYTES = 16;
const BODY_BYTES = 1 + 16 + 4;

export class CodecLinks {
  private readonly key: KeyObject;

  constructor(key: KeyObject) {
    this.key = key;
  }

  mint(userId: string, expiresAt: Date): string {
    const body = Buffer.alloc(BODY_BYTES);
    body[0] = VERSION;
    Buffer.from(userId.replace(/-/g, ''), 'hex').copy(body, 1);
    body.writeUInt32BE(Math.floor(expiresAt.getTime() / 1000), 17);
    return CODEC_LINK_PREFIX + Buffer.concat([body, this.mac(body)]).toString('base64url');
  }

  /** The operator's user id, or null for a token that is malformed, forged or expired. */
  verify(token: string, now = new Date()): { userId: string; expiresAt: Date } | null {
    if (!token.startsWith(CODEC_LINK_PREFIX)) return null;
    const text = token.slice(CODEC_LINK_PREFIX.length);
    const raw = Buffer.from(text, 'base64url');
    // Node's decoder skips stray characters: only the one canonical spelling is accepted.
    if (raw.length !== BODY_BYTES + MAC_BYTES || raw.toString('base64url') !== text || raw[0] !== VERSION) return null;
    const body = raw.subarray(0, BODY_BYTES);
    if (!timingSafeEqual(raw.subarray(BODY_BYTES), this.mac(body))) return null;
    const expiresAt = new Date(body.readUInt32BE(17) * 1000);
    if (expiresAt.getTime() <= now.getTime()) return null;
    const hex = body.subarray(1, 17).toString('hex');
    const userId = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
    return { userId, expiresAt };
  }

  private mac(body: Buffer): Buffer {
    return createHmac('sha256', this.key).update(body).digest().subarray(0, MAC_BYTES);
  }
}
