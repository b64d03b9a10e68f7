// The Safe's arithmetic (domain/treasury/safe/safe-tx.ts), pure: the EIP-712 SafeTx hash a
// wallet signs, signatures normalized and recovered, and execTransaction's signature bytes in
// owner order. (test/integration/safe-treasury.test.ts checks the hash against a real Safe.)
import fc from 'fast-check';
import { hashTypedData, zeroAddress, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { normalizeSignature, packSignatures, safeTxHash, safeTypedData, signerOf } from '../../domain/treasury/safe/safe-tx.ts';

const safe = privateKeyToAccount(generatePrivateKey()).address;
const tx = { to: privateKeyToAccount(generatePrivateKey()).address, value: 10n ** 18n, data: '0x' as Hex, operation: 0 as const, nonce: 7n };

test('the hash is EIP-712 over {chainId, verifyingContract} and SafeTx with the refund fields at zero; a wallet signature recovers to its owner', async () => {
  const owner = privateKeyToAccount(generatePrivateKey());
  const typed = safeTypedData(11155111, safe, tx);
  expect(typed.message).toMatchObject({ safeTxGas: 0n, baseGas: 0n, gasPrice: 0n, gasToken: zeroAddress, refundReceiver: zeroAddress, nonce: 7n });
  expect(safeTxHash(11155111, safe, tx)).toBe(hashTypedData(typed));
  expect(safeTxHash(1, safe, tx)).not.toBe(safeTxHash(11155111, safe, tx)); // the chain is in the domain
  const sig = await owner.signTypedData(typed);
  expect(await signerOf(safeTxHash(11155111, safe, tx), normalizeSignature(sig)!)).toBe(owner.address);
});

test('signatures: v 0/1 becomes 27/28; other lengths, v values and high s are refused', () => {
  const r = 'ab'.repeat(32);
  const s = '01'.repeat(32);
  expect(normalizeSignature(`0x${r}${s}00`)).toBe(`0x${r}${s}1b`);
  expect(normalizeSignature(`0x${r}${s}1c`)).toBe(`0x${r}${s}1c`);
  expect(normalizeSignature(`0x${r}${s}1f`)).toBeNull(); // eth_sign style (v + 4) is not accepted
  expect(normalizeSignature(`0x${r}${s}`)).toBeNull();
  expect(normalizeSignature(`0x${r}${'ff'.repeat(32)}1b`)).toBeNull(); // high s
  expect(normalizeSignature('not hex')).toBeNull();
});

test('execTransaction signatures are concatenated in ascending owner order, whatever order they were collected in', () => {
  fc.assert(fc.property(fc.uniqueArray(fc.bigInt({ min: 1n, max: (1n << 160n) - 1n }), { minLength: 1, maxLength: 6 }), (owners) => {
    const sigs = owners.map((o) => ({ owner: `0x${o.toString(16).padStart(40, '0')}`, signature: `0x${o.toString(16).padStart(130, '0')}` as Hex }));
    const packed = packSignatures(sigs);
    const order = [...owners].sort((a, b) => (a < b ? -1 : 1));
    expect(packed).toBe(`0x${order.map((o) => o.toString(16).padStart(130, '0')).join('')}`);
  }));
});
