// Transaction-bound passkey tokens for treasury sends (reference: `tx-assert/begin {tx_digest}`,
// then `complete` gives a passkey token sent as X-Passkey-Token on the send). begin issues an
// assertion challenge for one of the caller's own passkeys (as POST /v1/auth/reauth/begin does)
// and records which transfer it is for; complete checks the assertion (the same checks and
// throttle as any re-authentication by passkey) and mints a single-use `rat_` token for
// `treasury_wallet.send`, method passkey, bound to that digest: the send spends it only when its
// own digest is the same (step-up.ts), so the token moves exactly the transfer the passkey approved.
// The digest: SHA-256 hex of `chain|to|value_wei|data` (transferDigest below).
import { createHash, type KeyObject } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ActionContext } from '../../audit/action-context.ts';
import type { ActionAudit } from '../../audit/action-audit.ts';
import type { AssertionOptions, PasskeyCommands } from '../../accounts/passkeys.ts';
import type { Assertion } from '../../accounts/webauthn.ts';
import { callerOf } from '../../auth/principal.ts';
import { unauthorized } from '../../errors.ts';
import { digestToken, newOpaqueToken } from '../../crypto/opaque-tokens.ts';
import { PASSKEY_CHALLENGE_TTL_SECONDS } from '../../accounts/passkey-challenge-ttl.ts';
import { insertReauthToken } from '../../accounts/reauth-repository.ts';
import { REAUTH_TOKEN_PREFIX, REAUTH_TOKEN_TTL_SECONDS } from '../../accounts/step-up.ts';
import { walletOwner } from './wallet-access.ts';
import { insertTxChallenge, takeTxChallenge } from './tx-challenge-repository.ts';

export type TransferPasskeyDeps = {
  db: () => EntityManager; audit: ActionAudit; pepper: KeyObject;
  passkeys: Pick<PasskeyCommands, 'ownBegin' | 'confirmReauth'>;
};

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/**
 * The transfer digest a passkey approves: SHA-256 hex of `chain|to|value_wei|data`, with `chain`
 * as in the send's path (trimmed, lower case), `to` in lower case, `value_wei` in decimal and
 * `data` in lower-case 0x-hex (`0x` when there is none).
 */
export const transferDigest = (chain: string, to: string, valueWei: bigint, data: string | undefined): string =>
  sha256(`${chain.trim().toLowerCase()}|${to.toLowerCase()}|${valueWei}|${(data ?? '0x').toLowerCase()}`);

export class TransferPasskeys {
  private readonly d: TransferPasskeyDeps;

  constructor(deps: TransferPasskeyDeps) {
    this.d = deps;
  }

  async begin(ctx: ActionContext, txDigest: string): Promise<AssertionOptions> {
    const em = this.d.db();
    const owner = await walletOwner(ctx, em);
    const options = await this.d.passkeys.ownBegin(ctx, 'reauth');
    await insertTxChallenge(em, { challengeDigest: sha256(options.challenge), userId: owner.userId, txDigest: txDigest.toLowerCase(), ttlSeconds: PASSKEY_CHALLENGE_TTL_SECONDS });
    return options;
  }

  async complete(ctx: ActionContext, a: Assertion): Promise<{ token: string; expiresIn: number; txDigest: string }> {
    const em = this.d.db();
    const owner = await walletOwner(ctx, em);
    const challenge = challengeOf(a.clientDataJson);
    const txDigest = challenge === undefined ? undefined : await takeTxChallenge(em, sha256(challenge), owner.userId);
    if (txDigest === undefined) throw unauthorized('The challenge is unknown, used or expired, or was not issued for a transfer: begin again (tx-assert/begin)');
    await this.d.passkeys.confirmReauth(ctx, a);
    const token = newOpaqueToken(REAUTH_TOKEN_PREFIX);
    await insertReauthToken(em, {
      digest: digestToken(this.d.pepper, token), userId: callerOf(ctx).id, purpose: 'treasury_wallet.send', method: 'passkey',
      ttlSeconds: REAUTH_TOKEN_TTL_SECONDS, targetId: txDigest,
    });
    await this.d.audit.record(ctx, 'auth.reauth', { resourceType: 'user', resourceId: owner.userId, details: { purpose: 'treasury_wallet.send', method: 'passkey', tx_digest: txDigest } });
    return { token, expiresIn: REAUTH_TOKEN_TTL_SECONDS, txDigest };
  }
}

/** The challenge a WebAuthn client data JSON (base64url) carries, if it parses. */
function challengeOf(clientDataJson: string): string | undefined {
  try {
    const c = JSON.parse(Buffer.from(clientDataJson, 'base64url').toString('utf8')) as { challenge?: unknown };
    return typeof c.challenge === 'string' ? c.challenge : undefined;
  } catch {
    return undefined;
  }
}
