// The Cardano transfer builder alone (no provider, no stack): UTxO selection (largest first,
// ADA-only, reserved ones skipped, as many inputs as the amount and fee need), change back to
// the agent or, when it would fall below the minimum UTxO and no UTxO is left, left to the fee;
// the value always conserved; signed once.
import * as C from '@emurgo/cardano-serialization-lib-nodejs';
import { ed25519 } from '@noble/curves/ed25519';
import { enterpriseAddress } from '../../domain/intents/families/cardano/cardano-address.ts';
import { signCardanoTransfer, utxoIdOf, type CardanoTransferPlan } from '../../domain/intents/families/cardano/cardano-transfer.ts';
import type { CardanoUtxo, ProtocolParameters } from '../../domain/intents/families/cardano/cardano-provider.ts';

const ADA = 1_000_000n;
const params: ProtocolParameters = {
  minFeeA: 44n, minFeeB: 155_381n, coinsPerUtxoByte: 4_310n, maxTxSize: 16_384, maxValueSize: 5_000, keyDeposit: 2_000_000n, poolDeposit: 500_000_000n,
};
const secret = ed25519.utils.randomPrivateKey();
const publicKey = ed25519.getPublicKey(secret);
const from = enterpriseAddress(publicKey, 'preprod');
const to = C.Address.from_bech32(enterpriseAddress(ed25519.getPublicKey(ed25519.utils.randomPrivateKey()), 'preprod'));
const utxo = (lovelace: bigint, n: number, tokens = false): CardanoUtxo => ({ txHash: n.toString(16).padStart(64, '0'), index: 0, lovelace, tokens });
const plan = (utxos: CardanoUtxo[], amount: bigint, reserved: string[] = []): CardanoTransferPlan =>
  ({ utxos, reserved: new Set(reserved), params, publicKey, from, to, amount, ttlSlot: 5000n });
const sign = async (m: Uint8Array) => ed25519.sign(m, secret);
const outputsOf = (hex: string) => {
  const outs = C.FixedTransaction.from_hex(hex).body().outputs();
  return Array.from({ length: outs.len() }, (_, i) => ({ address: outs.get(i).address().to_bech32(undefined), lovelace: BigInt(outs.get(i).amount().coin().to_str()) }));
};

test('as many of the largest ADA-only, unreserved UTxOs as needed; change back; inputs = outputs + fee', async () => {
  const utxos = [utxo(2n * ADA, 1), utxo(3n * ADA, 2), utxo(50n * ADA, 3, true), utxo(4n * ADA, 4), utxo(6n * ADA, 5)];
  const s = await signCardanoTransfer(plan(utxos, 7n * ADA, [utxoIdOf(utxos[4]!)]), sign);
  // 4 + 3 + 2: the 6 is reserved, the 50 holds tokens (the body keeps its inputs in canonical order).
  expect([...s.inputs].sort()).toEqual([utxoIdOf(utxos[0]!), utxoIdOf(utxos[1]!), utxoIdOf(utxos[3]!)]);
  const outs = outputsOf(s.cborHex);
  expect(outs).toEqual([{ address: to.to_bech32(undefined), lovelace: 7n * ADA }, { address: from, lovelace: s.change }]);
  expect(s.change).toBeGreaterThan(1n * ADA);
  expect(9n * ADA).toBe(7n * ADA + s.change + s.fee);
  expect(C.FixedTransaction.from_hex(s.cborHex).body().ttl_bignum()!.to_str()).toBe('5000');
});

test('a leftover below the minimum UTxO with no UTxO left goes to the fee; with another UTxO, it is added for the change', async () => {
  const alone = await signCardanoTransfer(plan([utxo(3n * ADA, 1)], 2n * ADA), sign);
  expect(alone.change).toBe(0n);
  expect(alone.fee).toBe(1n * ADA);
  expect(outputsOf(alone.cborHex)).toHaveLength(1);
  const more = await signCardanoTransfer(plan([utxo(3n * ADA, 1), utxo(2n * ADA, 2)], 2n * ADA), sign);
  expect(more.inputs).toHaveLength(2);
  expect(more.change).toBe(5n * ADA - 2n * ADA - more.fee);
  expect(more.fee).toBeLessThan(200_000n);
});

test('refusals before signing: below the minimum UTxO (400), short of funds (422, naming what is reserved)', async () => {
  let signed = 0;
  const counting = async (m: Uint8Array) => { signed++; return sign(m); };
  await expect(signCardanoTransfer(plan([utxo(10n * ADA, 1)], 800_000n), counting)).rejects.toMatchObject({ status: 400 });
  await expect(signCardanoTransfer(plan([utxo(10n * ADA, 1), utxo(5n * ADA, 2)], 9_900_000n, [utxoIdOf(utxo(10n * ADA, 1))]), counting))
    .rejects.toMatchObject({ status: 422, extras: expect.objectContaining({ reserved_lovelace: '10000000', balance_lovelace: '5000000' }) });
  expect(signed).toBe(0);
});
