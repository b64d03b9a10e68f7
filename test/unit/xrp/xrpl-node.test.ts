// The fake XRPL server itself (test/helpers/xrpl-node.ts): blobs signed by xrpl's own Wallet are
// decoded, verified and applied as rippled would, and what rippled refuses is refused with its
// engine result: a forged signature, a used or future sequence, too little XRP above the reserve,
// a missing destination tag, a new account below the base reserve, a passed LastLedgerSequence.
import { ECDSA, Wallet } from 'xrpl';
import { startXrplNode, RESERVE_BASE, type XrplNode } from '../../helpers/xrpl-node.ts';

let node: XrplNode;
const alice = Wallet.generate(ECDSA.secp256k1);
const bob = Wallet.generate(ECDSA.secp256k1);

const rpc = async (method: string, params: Record<string, unknown> = {}) => {
  const res = await fetch(node.url, { method: 'POST', body: JSON.stringify({ method, params: [params] }) });
  return (await res.json() as { result: Record<string, any> }).result;
};
const seq = () => node.account(alice.classicAddress)!.sequence;
const pay = (fields: Record<string, unknown>, w = alice) => w.sign({
  TransactionType: 'Payment', Account: alice.classicAddress, Destination: bob.classicAddress, Amount: '1000000', Fee: '10',
  Sequence: seq(), LastLedgerSequence: node.validatedLedger() + 10, ...fields,
} as never);
const submit = async (blob: string) => (await rpc('submit', { tx_blob: blob })).engine_result as string;

beforeAll(async () => {
  node = await startXrplNode({ closeMs: 60_000 });
  node.fund(alice.classicAddress, 10_000_000n);
  node.fund(bob.classicAddress, 5_000_000n);
});
afterAll(() => node.stop());

test('a good payment is applied, validated on close, and the same blob again is already known', async () => {
  const s = pay({});
  expect(await submit(s.tx_blob)).toBe('tesSUCCESS');
  expect((await rpc('tx', { transaction: s.hash })).validated).toBe(false);
  node.closeLedger();
  expect(await rpc('tx', { transaction: s.hash })).toMatchObject({ validated: true, meta: { TransactionResult: 'tesSUCCESS' } });
  expect(await submit(s.tx_blob)).toBe('tefALREADY');
  expect(node.balance(bob.classicAddress)).toBe(6_000_000n);
  expect(node.balance(alice.classicAddress)).toBe(10_000_000n - 1_000_000n - 10n);
});

test('refusals: forged signature, used sequence, passed LastLedgerSequence', async () => {
  expect(await submit(pay({}, bob).tx_blob)).toBe('temBAD_SIGNATURE'); // bob's key, alice's Account
  expect(await submit(pay({ Sequence: seq() - 1 }).tx_blob)).toBe('tefPAST_SEQ');
  expect(await submit(pay({ LastLedgerSequence: node.validatedLedger() }).tx_blob)).toBe('tefMAX_LEDGER');
  expect((await rpc('tx', { transaction: 'AB'.repeat(32) })).error).toBe('txnNotFound');
});

test('a future sequence is held (terPRE_SEQ) and applied when its turn comes', async () => {
  const later = pay({ Sequence: seq() + 1 });
  expect(await submit(later.tx_blob)).toBe('terPRE_SEQ');
  expect(await submit(pay({}).tx_blob)).toBe('tesSUCCESS');
  node.closeLedger();
  expect((await rpc('tx', { transaction: later.hash })).meta.TransactionResult).toBe('tesSUCCESS');
});

test('tec results claim the fee and the sequence: unfunded, destination tag needed, new account below the reserve', async () => {
  const before = seq();
  expect(await submit(pay({ Amount: '100000000' }).tx_blob)).toBe('tecUNFUNDED_PAYMENT');
  node.requireDestTag(bob.classicAddress);
  expect(await submit(pay({}).tx_blob)).toBe('tecDST_TAG_NEEDED');
  expect(await submit(pay({ DestinationTag: 9 }).tx_blob)).toBe('tesSUCCESS');
  const newcomer = Wallet.generate(ECDSA.secp256k1).classicAddress;
  expect(await submit(pay({ Destination: newcomer, Amount: (RESERVE_BASE - 1n).toString() }).tx_blob)).toBe('tecNO_DST_INSUF_XRP');
  expect(seq()).toBe(before + 4);
  expect(node.balance(newcomer)).toBe(0n);
});

test('account_info of an unknown account is actNotFound; fee, ledger_current, ledger and server_state answer as rippled shapes them', async () => {
  expect((await rpc('account_info', { account: Wallet.generate(ECDSA.secp256k1).classicAddress })).error).toBe('actNotFound');
  expect((await rpc('fee')).drops.base_fee).toBe('10');
  expect((await rpc('ledger_current')).ledger_current_index).toBe(node.validatedLedger() + 1);
  expect((await rpc('ledger', { ledger_index: 'validated' })).ledger_index).toBe(node.validatedLedger());
  expect((await rpc('server_state')).state.validated_ledger.reserve_base).toBe(Number(RESERVE_BASE));
});
