// The pure part of POST /v1/agents/{agent_id}/sign (domain/intents/): each intent's digest, the
// answer built from a signature, and the 400s naming the field. A software key stands in for the
// KMS; the integration test (agent-sign.test.ts) signs through the real backends.
import { hexToBigInt, keccak256, parseTransaction, recoverAddress, recoverMessageAddress, recoverTransactionAddress, recoverTypedDataAddress, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount, sign } from 'viem/accounts';
import { digestBytes, prepareIntent, signedIntent, type SignIntentInput } from '../../domain/intents/signing/sign-intents.ts';
import { signIntentBody } from '../../api/routes/agents/sign-schema.ts';
import { Problem } from '../../domain/errors.ts';

const key = generatePrivateKey();
const address = privateKeyToAccount(key).address;
const CHAIN_ID = 8453;
const DEAD = '0x000000000000000000000000000000000000dEaD';

async function signBody(body: Record<string, unknown>) {
  const input = signIntentBody.parse(body) as SignIntentInput;
  const prepared = prepareIntent(input, CHAIN_ID);
  const s = await sign({ hash: prepared.digest, privateKey: key });
  const bytes = (h: Hex) => Buffer.from(hexToBigInt(h).toString(16).padStart(64, '0'), 'hex');
  expect(digestBytes(prepared.digest)).toHaveLength(32);
  return signedIntent(prepared, { r: bytes(s.r), s: bytes(s.s), recovery: s.yParity as 0 | 1 });
}

function refusal(body: Record<string, unknown>): { status: number; field: string } {
  const parsed = signIntentBody.safeParse(body);
  if (!parsed.success) return { status: 400, field: parsed.error.issues[0]!.path.join('.') };
  try {
    prepareIntent(parsed.data as SignIntentInput, CHAIN_ID);
  } catch (e) {
    if (e instanceof Problem) return { status: e.status, field: (e.extras.errors as { field: string }[])[0]!.field };
    throw e;
  }
  return { status: 200, field: '' };
}

const tx = { intent_type: 'transaction', chain: 'base', to: DEAD, value: '1.5', nonce: 1, gas_limit: '21000' };
const fees = { max_fee_per_gas: 3, max_priority_fee_per_gas: '0x1' };

test('personal_sign: text and 0x-hex bytes recover to the key', async () => {
  const text = await signBody({ intent_type: 'personal_sign', chain: 'base', message: 'hi' });
  expect(await recoverMessageAddress({ message: 'hi', signature: text.signature })).toBe(address);
  const raw = await signBody({ intent_type: 'personal_sign', chain: 'base', message: '0x6869' });
  expect(raw.signature).toBe(text.signature);
  expect(raw).toMatchObject({ intentType: 'personal_sign', typedDataHash: null, signedTx: null, txType: null });
});

test('typed_data and digest recover to the key', async () => {
  const typedData = {
    types: { Permit: [{ name: 'owner', type: 'address' }, { name: 'value', type: 'uint256' }, { name: 'tag', type: 'bytes4' }] },
    primaryType: 'Permit', domain: { name: 'T', chainId: CHAIN_ID }, message: { owner: DEAD, value: '0xff', tag: '0x01020304' },
  };
  const r = await signBody({ intent_type: 'typed_data', chain: 'base', typed_data: typedData });
  expect(await recoverTypedDataAddress({ ...typedData, message: { ...typedData.message, value: 255n }, signature: r.signature } as any)).toBe(address);
  const hash = keccak256('0xabcd');
  const d = await signBody({ intent_type: 'digest', chain: 'base', hash });
  expect(d).toMatchObject({ intentType: 'eip712_digest', typedDataHash: hash });
  expect(await recoverAddress({ hash, signature: d.signature })).toBe(address);
});

test.each([[0, { gas_price: 5 }], [1, { gas_price: 5, access_list: [] }], [2, fees], [3, { ...fees, max_fee_per_blob_gas: 1, blob_versioned_hashes: [`0x01${'00'.repeat(31)}`] }]])(
  'transaction type %i: chain id, fields and signer', async (type, extra) => {
    const r = await signBody({ ...tx, tx_type: type, ...extra });
    const parsed = parseTransaction(r.signedTx!);
    expect(parsed).toMatchObject({ chainId: CHAIN_ID, nonce: 1, gas: 21000n, value: 1_500_000_000_000_000_000n });
    expect(r.txType).toBe(type);
    expect(r.txHash).toBe(keccak256(r.signedTx!));
    expect(await recoverTransactionAddress({ serializedTransaction: r.signedTx as any })).toBe(address);
  });

test('the type is inferred from the fee fields when tx_type is absent', async () => {
  expect((await signBody({ ...tx, gas_price: 1 })).txType).toBe(0);
  expect((await signBody({ ...tx, gas_price: 1, access_list: [] })).txType).toBe(1);
  expect((await signBody({ ...tx, ...fees })).txType).toBe(2);
});

test.each<[string, Record<string, unknown>, string]>([
  ['no nonce', { ...tx, ...fees, nonce: undefined }, 'nonce'],
  ['no gas limit', { ...tx, ...fees, gas_limit: undefined }, 'gas_limit'],
  ['no gas price for legacy', { ...tx, tx_type: 0 }, 'gas_price'],
  ['a 1559 fee on legacy', { ...tx, tx_type: 0, gas_price: 1, max_fee_per_gas: 1 }, 'max_fee_per_gas'],
  ['tip above the fee cap', { ...tx, max_fee_per_gas: 1, max_priority_fee_per_gas: 2 }, 'max_priority_fee_per_gas'],
  ['a blob hash of the wrong version', { ...tx, ...fees, tx_type: 3, max_fee_per_blob_gas: 1, blob_versioned_hashes: [`0x02${'00'.repeat(31)}`] }, 'blob_versioned_hashes.0'],
  ['contract creation with 7702', { ...tx, ...fees, to: undefined, tx_type: 4, authorization_list: [{ address: DEAD, chain_id: 0, nonce: 0, r: '0x1', s: '0x1', y_parity: 1 }] }, 'to'],
  ['a high-S authorization', { ...tx, ...fees, tx_type: 4, authorization_list: [{ address: DEAD, chain_id: 0, nonce: 0, r: '0x1', s: `0x${'f'.repeat(64)}`, y_parity: 1 }] }, 'authorization_list.0.s'],
  ['a typed data integer out of range', { intent_type: 'typed_data', chain: 'base', typed_data: { types: { A: [{ name: 'n', type: 'uint8' }] }, primaryType: 'A', message: { n: 256 } } }, 'typed_data.message.n'],
  ['a typed data field missing', { intent_type: 'typed_data', chain: 'base', typed_data: { types: { A: [{ name: 'n', type: 'uint8' }] }, primaryType: 'A', message: {} } }, 'typed_data.message.n'],
  ['a prototype name as a type', { intent_type: 'typed_data', chain: 'base', typed_data: { types: { A: [{ name: 'n', type: 'constructor' }] }, primaryType: 'A', message: { n: {} } } }, 'typed_data.message.n'],
  ['typed data without types', { intent_type: 'typed_data', chain: 'base', typed_data: { primaryType: 'A', message: {} } }, 'typed_data.types'],
  ['a digest of 31 bytes', { intent_type: 'eip712_digest', chain: 'base', hash: `0x${'00'.repeat(31)}` }, 'hash'],
  ['no digest', { intent_type: 'eip712_digest', chain: 'base' }, 'hash'],
])('%s: 400 naming the field', (_name, body, field) => {
  expect(refusal(body)).toEqual({ status: 400, field });
});
