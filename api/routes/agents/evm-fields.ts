// Field schemas of the EVM routes (unified sign, transactions, simulations): addresses, hex
// bytes, wei quantities and ETH amounts, as the reference's clients send them. Amounts come out
// as bigint wei.
import { z } from 'zod';
import { getAddress, isAddress, parseEther, type Hex } from 'viem';

export const MAX_UINT256 = (1n << 256n) - 1n;
export const MAX_UINT64 = (1n << 64n) - 1n;

export const address = z.string().trim().refine((v) => isAddress(v), { message: 'must be a 20-byte 0x-hex address (with a valid EIP-55 checksum when mixed-case)' })
  .transform((v) => getAddress(v));
export const hexBytes = z.string().regex(/^0x([0-9a-fA-F]{2})*$/, { message: 'must be 0x-prefixed hex bytes' }).transform((v) => v.toLowerCase() as Hex);

/** A non-negative integer quantity up to `max`: a JSON integer, or decimal or 0x-hex text. */
export const quantity = (max: bigint, what: string) => z.union([
  z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER),
  z.string().trim().regex(/^(0x[0-9a-fA-F]{1,64}|[0-9]{1,78})$/),
], { message: `must be ${what}: a non-negative integer, as a JSON number or decimal or 0x-hex text` })
  .transform((v) => BigInt(v))
  .refine((v) => v <= max, { message: `must be at most ${max}` });
export const wei = quantity(MAX_UINT256, 'an amount in wei');

/** ETH as decimal text ("0.5"), or wei as 0x-hex text. */
export const value = z.string().trim().regex(/^((0|[1-9][0-9]{0,59})(\.[0-9]{1,18})?|0x[0-9a-fA-F]{1,64})$/, {
  message: 'must be a decimal amount in ETH (e.g. "0.5") or 0x-hex wei',
}).transform((v) => (v.startsWith('0x') ? BigInt(v) : parseEther(v)))
  .refine((v) => v <= MAX_UINT256, { message: 'must be at most 2^256 - 1 wei' });

export const chain = z.union([
  z.string().trim().min(1).max(100),
  z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
], { message: 'must be a chain name such as ethereum or base, or a chain_id' });

/** An optional field; null counts as not sent (clients serialize unset optional fields as null). */
export const opt = <S extends z.ZodType>(s: S) => s.nullish().transform((v) => v ?? undefined);

export const nonce = z.union([
  z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER),
  z.string().trim().regex(/^[0-9]{1,16}$/).transform(Number).pipe(z.number().max(Number.MAX_SAFE_INTEGER)),
], { message: 'must be a non-negative integer' });
