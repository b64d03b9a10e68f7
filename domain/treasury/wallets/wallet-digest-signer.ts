// A human's treasury wallet signing a 32-byte digest: how a user who is a Safe owner through their
// EVM treasury wallet approves a proposal without posting a signature (domain/treasury/safe).
// Signing with the wallet's key can move the organization's funds, so it asks the same
// confirmation as a send: X-Auth-Confirm with the password, or a rat_ token for
// treasury_wallet.send bound to this digest. The key is unsealed for the moment of the signature
// and zeroed after it (treasury-keys.ts).
import { confirmWalletUse } from './wallet-confirmation.ts';
import type { EntityManager } from '@mikro-orm/postgresql';
import { secp256k1 } from '@noble/curves/secp256k1';
import type { Kms } from '../../crypto/kms/kms.ts';
import type { StepUp } from '../../accounts/step-up.ts';
import { Problem } from '../../errors.ts';
import { activeWallet, keyOf, type Owner } from './wallet-repository.ts';
import { unsealKey } from './treasury-keys.ts';

export type DigestSignature = { address: string; r: Buffer; s: Buffer; recovery: 0 | 1 };

export class WalletDigestSigner {
  private readonly d: { db: () => EntityManager; kms: Kms; stepUp: StepUp };

  constructor(deps: { db: () => EntityManager; kms: Kms; stepUp: StepUp }) {
    this.d = deps;
  }

  /** The address of the owner's active EVM treasury wallet, or null. */
  async evmAddress(owner: Owner): Promise<string | null> {
    return (await activeWallet(this.d.db(), owner, 'ethereum'))?.address ?? null;
  }

  /** The owner's active EVM wallet's signature over `digest`, once `confirm` passes; 404 without a wallet. */
  async sign(owner: Owner, digest: Buffer, confirm: string | undefined): Promise<DigestSignature> {
    const em = this.d.db();
    const target = `0x${digest.toString('hex')}`;
    await confirmWalletUse(this.d.stepUp, em, owner.userId, confirm, {
      purpose: 'treasury_wallet.send', target, doing: 'Signing with a treasury wallet',
      wrong: `Signing with your treasury wallet needs X-Auth-Confirm: your account password, or a rat_ token for treasury_wallet.send with target ${target}`,
    });
    const wallet = await activeWallet(em, owner, 'ethereum');
    if (!wallet) throw new Problem(404, 'You have no active ethereum treasury wallet');
    const key = await unsealKey(em, this.d.kms, owner.orgId, keyOf(wallet));
    try {
      const sig = secp256k1.sign(digest, key, { lowS: true });
      return {
        address: wallet.address,
        r: Buffer.from(sig.r.toString(16).padStart(64, '0'), 'hex'),
        s: Buffer.from(sig.s.toString(16).padStart(64, '0'), 'hex'),
        recovery: sig.recovery as 0 | 1,
      };
    } finally {
      key.fill(0);
    }
  }
}
