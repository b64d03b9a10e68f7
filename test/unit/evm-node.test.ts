// The local EVM node (test/helpers/evm-node.ts) answers real HTTP JSON-RPC, and a signing key held
// by the KMS signs an EIP-1559 transaction that the node accepts and mines: the path agents' EVM
// intents will take, with the private key never leaving the backend (for pkcs11, the token).
// Needs no Postgres or Temporal: EDR runs in this process.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createPublicClient, getAddress, http, keccak256, parseEther, parseGwei, serializeTransaction, toHex,
  type PublicClient, type TransactionSerializableEIP1559,
} from 'viem';
import { publicKeyToAddress } from 'viem/accounts';
import type { Kms } from '../../domain/crypto/kms/kms.ts';
import { openLocalKms } from '../../domain/crypto/kms/local.ts';
import { openPkcs11Kms } from '../../domain/crypto/kms/pkcs11.ts';
import { startEvmNode, type EvmNode } from '../helpers/evm-node.ts';
import { createSoftHsmToken } from '../helpers/softhsm.ts';

const CHAIN_ID = 4242;
let node: EvmNode;
let client: PublicClient;

beforeAll(async () => {
  node = await startEvmNode({ chainId: CHAIN_ID });
  client = createPublicClient({ transport: http(node.url), pollingInterval: 50 });
});
afterAll(async () => { await node?.stop(); });

/** Signs `tx` the way an intent will: keccak256 of the unsigned serialization, signed by the KMS. */
async function signWithKms(kms: Kms, ref: string, tx: TransactionSerializableEIP1559) {
  const digest = keccak256(serializeTransaction(tx));
  const sig = await kms.signDigest(ref, Buffer.from(digest.slice(2), 'hex'));
  return { sig, raw: serializeTransaction(tx, { r: toHex(sig.r), s: toHex(sig.s), yParity: sig.recovery }) };
}

async function transferWith(kms: Kms): Promise<void> {
  const { ref, publicKey } = await kms.createSigningKey('evm-test');
  const from = publicKeyToAddress(toHex(publicKey));
  const to = getAddress(toHex(randomBytes(20)));
  await node.fund(from, parseEther('1'));
  expect(await client.getBalance({ address: from })).toBe(parseEther('1'));

  const block = await client.getBlock();
  const value = parseEther('0.25');
  const tx: TransactionSerializableEIP1559 = {
    type: 'eip1559', chainId: CHAIN_ID, nonce: await client.getTransactionCount({ address: from }),
    to, value, gas: 21_000n, maxPriorityFeePerGas: parseGwei('1'), maxFeePerGas: block.baseFeePerGas! * 2n + parseGwei('1'),
  };
  const { sig, raw } = await signWithKms(kms, ref, tx);

  // The wrong parity recovers another, unfunded sender: the node must refuse it.
  const flipped = serializeTransaction(tx, { r: toHex(sig.r), s: toHex(sig.s), yParity: sig.recovery ^ 1 });
  await expect(client.sendRawTransaction({ serializedTransaction: flipped })).rejects.toThrow(/insufficient funds|balance/i);

  const hash = await client.sendRawTransaction({ serializedTransaction: raw });
  const receipt = await client.waitForTransactionReceipt({ hash, timeout: 10_000 });
  expect(receipt.status).toBe('success');
  expect(getAddress(receipt.from)).toBe(from);
  expect(await client.getBalance({ address: to })).toBe(value);
  const fee = receipt.gasUsed * receipt.effectiveGasPrice;
  expect(await client.getBalance({ address: from })).toBe(parseEther('1') - value - fee);
  expect(await client.getTransactionCount({ address: from })).toBe(1);
}

describe('local EVM node (EDR over HTTP JSON-RPC)', () => {
  test('answers eth_chainId and eth_blockNumber over HTTP, batches too; mine() adds a block', async () => {
    expect(node.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await client.getChainId()).toBe(CHAIN_ID);
    // cacheTime 0: viem otherwise reuses a block number fetched within its polling interval.
    const before = await client.getBlockNumber({ cacheTime: 0 });
    await node.mine();
    expect(await client.getBlockNumber({ cacheTime: 0 })).toBe(before + 1n);

    const res = await fetch(node.url, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify([{ jsonrpc: '2.0', id: 7, method: 'eth_chainId', params: [] }, { jsonrpc: '2.0', id: 'b', method: 'no_such_method', params: [] }]),
    });
    const batch = await res.json() as { id: unknown; result?: string; error?: { code: number } }[];
    expect(batch).toHaveLength(2);
    expect(batch[0]).toEqual({ jsonrpc: '2.0', id: 7, result: toHex(CHAIN_ID) });
    expect(batch[1]!.id).toBe('b');
    expect(batch[1]!.error?.code).toEqual(expect.any(Number));

    const bad = await fetch(node.url, { method: 'POST', body: '{not json' });
    expect((await bad.json() as { error: { code: number } }).error.code).toBe(-32700);
  });

  test('a local KMS signing key sends an EIP-1559 transfer that is mined with status success', async () => {
    await transferWith(openLocalKms(randomBytes(32)));
  });

  test('a pkcs11 (SoftHSM2) signing key does the same, its private key staying in the token', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'evm-pkcs11-'));
    const token = createSoftHsmToken(dir);
    const kms = await openPkcs11Kms({ modulePath: token.modulePath, tokenLabel: token.tokenLabel, pin: token.pin });
    try {
      await transferWith(kms);
    } finally {
      await kms.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
