// Vault-unlock passkey tokens (§5 item 6; reference facts §4.3): after a passkey assertion with user
// verification (POST /v1/auth/passkeys/vault-assert/complete) the user gets a token to send as
// X-Passkey-Token on secret reads while `require_passkey_for_vaults` is on. It is reusable for
// 5 minutes and bound to the user: `pkt_<expiry seconds>.<HMAC of user and expiry>`. Checked in
// memory (no statement), so the cached read path keeps its speed; every api replica shares the key.
import { timingSafeEqual, type KeyObject } from 'node:crypto';
import { digestToken } from '../crypto/opaque-tokens.ts';

export const PASSKEY_TOKEN_PREFIX = 'pkt_';
export const PASSKEY_TOKEN_TTL_SECONDS = 300;

export class PasskeyTokens {
  private readonly pepper: KeyObject;

  constructor(pepper: KeyObject) {
    this.pepper = pepper;
  }

  issue(userId: string, nowSeconds = Math.floor(Date.now() / 1000)): { token: string; expiresIn: number } {
    const exp = nowSeconds + PASSKEY_TOKEN_TTL_SECONDS;
    return { token: `${PASSKEY_TOKEN_PREFIX}${exp}.${this.mac(userId, exp)}`, expiresIn: PASSKEY_TOKEN_TTL_SECONDS };
  }

  /** Whether `token` is this user's and unexpired. */
  valid(userId: string, token: string | undefined, nowSeconds = Math.floor(Date.now() / 1000)): boolean {
    const m = token === undefined ? null : /^pkt_(\d{1,12})\.([0-9a-f]{64})$/.exec(token);
    if (!m) return false;
    const exp = Number(m[1]);
    if (exp <= nowSeconds) return false;
    return timingSafeEqual(Buffer.from(m[2]!, 'hex'), Buffer.from(this.mac(userId, exp), 'hex'));
  }

  private mac(userId: string, exp: number): string {
    return digestToken(this.pepper, `passkey-token:${userId}:${exp}`);
  }
}
