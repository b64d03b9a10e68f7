// Checks a KMS signature as a chain would: ECDSA valid, s ≤ n/2, and ecrecover with the recovery
// id gives the key (viem, an implementation independent of the KMS backends).
import { secp256k1 } from '@noble/curves/secp256k1';
import { recoverAddress, recoverPublicKey, toHex } from 'viem';
import { publicKeyToAddress } from 'viem/accounts';
import type { EcdsaSignature } from '../../domain/crypto/kms/kms.ts';

export const HALF_N = secp256k1.CURVE.n >> 1n;

export async function expectEthereumValid(sig: EcdsaSignature, digest: Buffer, publicKey: Buffer): Promise<void> {
  expect(sig.r.length).toBe(32);
  expect(sig.s.length).toBe(32);
  expect(BigInt(toHex(sig.s)) <= HALF_N).toBe(true);
  expect(secp256k1.verify({ r: BigInt(toHex(sig.r)), s: BigInt(toHex(sig.s)) }, digest, publicKey, { lowS: true })).toBe(true);
  const signature = { r: toHex(sig.r), s: toHex(sig.s), yParity: sig.recovery };
  expect(await recoverPublicKey({ hash: digest, signature })).toBe(toHex(publicKey));
  expect(await recoverAddress({ hash: digest, signature })).toBe(publicKeyToAddress(toHex(publicKey)));
}
