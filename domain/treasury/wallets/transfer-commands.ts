// Sending from a treasury wallet (reference sendFromTreasuryWallet): human-only, the owner's
// active wallet only, confirmed with X-Auth-Confirm, and durable like the Intents API's submit:
//   1. the request is checked (the family's sanity cap: 10,000 ETH on EVM) and a repeated
//      Idempotency-Key is answered from the stored transfer, sending nothing (422 when the key
//      was used for another request);
//   2. X-Auth-Confirm: the password (wrong guesses throttled) or a `rat_` token for
//      `treasury_wallet.send`; or X-Passkey-Token: the token a passkey assertion bound to this
//      transfer's digest gave (transfer-passkeys.ts), spent only by the transfer it names;
//   3. gas, fees and funds from the chain (422 before signing when it cannot go);
//   4. ONE database transaction holds the wallet's row lock (a rotation or deactivation waits,
//      and two sends of the wallet take distinct nonces; on Bitcoin, the coins of the wallet's
//      unsettled transfers are left out), checks the key again, signs and stores the signed bytes
//      (status signed);
//   5. the broadcast workflow `treasury-transfer:<id>` (client.ts) sends exactly those bytes.
// A crash after 4 loses nothing (the sweeper starts the workflow), and no retry can send a second
// transaction: every send is of the same bytes, hence the same hash and nonce.
import { confirmWalletUse } from './wallet-confirmation.ts';
import { createHash, randomUUID } from 'node:crypto';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ActionContext } from '../../audit/action-context.ts';
import type { ActionAudit } from '../../audit/action-audit.ts';
import type { Kms } from '../../crypto/kms/kms.ts';
import type { StepUp } from '../../accounts/step-up.ts';
import { Problem, conflict, invalidField } from '../../errors.ts';
import type { WalletFamilies } from './families.ts';
import type { TreasuryTransfersClient } from './client.ts';
import { walletOwner } from './wallet-access.ts';
import { transferDigest } from './transfer-passkeys.ts';
import { unsealKey } from './treasury-keys.ts';
import { activeWallet, keyOf } from './wallet-repository.ts';
import { insertTransfer, nextOwnNonce, nextSequence, openSignedTxs, transferByIdempotencyKey, type TransferRow } from './transfer-repository.ts';

export type TransferDeps = { db: () => EntityManager; kms: Kms; audit: ActionAudit; stepUp: StepUp; families: WalletFamilies; client: TreasuryTransfersClient };

export type SendInput = { to: string; valueWei: bigint; data?: string; gasLimit?: bigint };
export type SendOutcome = { transfer: TransferRow; replayed: boolean };
/** The send's proof: X-Auth-Confirm, or X-Passkey-Token (with the digest the client says it approved, X-Passkey-Tx-Digest). */
export type SendConfirmation = { confirm?: string; passkeyToken?: string; passkeyTxDigest?: string };

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

export class TransferCommands {
  private readonly d: TransferDeps;

  constructor(deps: TransferDeps) {
    this.d = deps;
  }

  async send(ctx: ActionContext, rawChain: string, input: SendInput, proof: SendConfirmation, idempotencyKey: string | null): Promise<SendOutcome> {
    const em = this.d.db();
    const owner = await walletOwner(ctx, em);
    const family = await this.d.families.resolve(em, rawChain);
    const network = await family.network(em, rawChain);
    const to = family.destination(network, input.to);
    if (input.valueWei > family.sanityCap) {
      throw invalidField('value_wei', `exceeds the sanity cap of ${family.sanityCapLabel} per transfer; split it, or check the decimal point`);
    }
    const data = input.data ?? '0x';
    const requestDigest = sha256(JSON.stringify([network.chainId, to.toLowerCase(), input.valueWei.toString(), data.toLowerCase(), input.gasLimit?.toString() ?? null]));
    if (idempotencyKey !== null) {
      const prior = await transferByIdempotencyKey(em, owner.userId, idempotencyKey);
      if (prior) return { transfer: replay(prior, requestDigest), replayed: true };
    }

    const txDigest = transferDigest(rawChain, to, input.valueWei, input.data);
    if (proof.passkeyTxDigest !== undefined && proof.passkeyTxDigest.toLowerCase() !== txDigest) {
      throw invalidField('X-Passkey-Tx-Digest', 'is not the digest of this transfer (SHA-256 hex of chain|to|value_wei|data, see docs/treasury.md)');
    }
    const confirm = proof.confirm ?? proof.passkeyToken;
    await confirmWalletUse(this.d.stepUp, em, owner.userId, confirm, {
      purpose: 'treasury_wallet.send', target: txDigest, doing: 'Sending from a treasury wallet',
      wrong: 'Confirm in the X-Auth-Confirm header (your account password, or a rat_ token for treasury_wallet.send), or send X-Passkey-Token from a passkey assertion for this transfer',
    });

    const wallet = await activeWallet(em, owner, family.family);
    if (!wallet) throw new Problem(404, `You have no active ${family.family} treasury wallet`);
    const from = family.addressOn(network, wallet); // a Bitcoin wallet's differs per network
    const prepared = await family.prepareTransfer(network, from, { to, value: input.valueWei, data: input.data, gasLimit: input.gasLimit });
    const chainNonce = await family.nextNonce(network, from);
    const key = await unsealKey(em, this.d.kms, owner.orgId, keyOf(wallet));
    let stored: TransferRow | 'replay';
    try {
      if (family.keyFacts(key).address !== wallet.address) throw new Error('the sealed treasury key does not match its wallet');
      stored = await em.transactional(async (tx) => {
        const locked = await activeWallet(tx, owner, family.family, true);
        if (locked?.id !== wallet.id) throw conflict('The wallet was rotated or deactivated meanwhile; nothing was sent');
        if (idempotencyKey !== null && await transferByIdempotencyKey(tx, owner.userId, idempotencyKey)) return 'replay';
        let signed;
        if (family.sequence === 'chain') {
          const ours = await nextOwnNonce(tx, network.chainId, from);
          signed = await prepared.sign(key, ours === null ? chainNonce : Math.max(chainNonce, ours), []);
        } else {
          signed = await prepared.sign(key, await nextSequence(tx, network.chainId, from), await openSignedTxs(tx, network.chainId, from));
        }
        return insertTransfer(tx, {
          id: randomUUID(), org_id: owner.orgId, user_id: owner.userId, wallet_id: wallet.id, chain: network.name, chain_id: network.chainId,
          from_address: from, to_address: to, value_wei: input.valueWei, data: input.data ?? null, nonce: signed.nonce,
          signed_tx: signed.signedTx, tx_hash: signed.txHash, idempotency_key: idempotencyKey, request_digest: requestDigest,
        });
      });
    } catch (e) {
      if (!(e instanceof UniqueConstraintViolationException) || idempotencyKey === null) throw e;
      stored = 'replay'; // the same key stored by a concurrent request (another wallet of the user)
    } finally {
      key.fill(0);
    }
    if (stored === 'replay') {
      const prior = await transferByIdempotencyKey(em, owner.userId, idempotencyKey!);
      if (!prior) throw conflict('Idempotency-Key: a transfer with this key is being created; retry shortly');
      return { transfer: replay(prior, requestDigest), replayed: true };
    }
    const t = stored;
    await this.d.audit.record(ctx, 'treasury_wallet.send', {
      resourceType: 'treasury_wallet', resourceId: wallet.id,
      details: { transfer_id: t.id, chain: t.chain, chain_id: t.chain_id, from: t.from_address, to: t.to_address, value_wei: t.value_wei.toString(), nonce: t.nonce, tx_hash: t.tx_hash },
    });
    await this.d.client.startBroadcast({ id: t.id, orgId: t.org_id });
    return { transfer: t, replayed: false };
  }
}

function replay(prior: TransferRow, digest: string): TransferRow {
  if (prior.request_digest !== digest) {
    throw new Problem(422, 'Idempotency-Key: this key was used for a different transfer; use a new key', { type: 'idempotency_key_reused' });
  }
  return prior;
}
