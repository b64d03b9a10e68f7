// The XRP Ledger through the Intents API (issue 33 §1), over real HTTP against the shared stack
// and a fake XRPL server (test/helpers/xrpl-node.ts) that decodes every submitted blob with
// xrpl's codec, verifies its signature against the agent's key and applies it to its ledger: an
// agent's xrp key (secp256k1 in the KMS, both backends), Payments signed once and confirmed by the
// `tx:<id>` workflow, sign-only blobs verifiable with xrpl, a destination tag the destination
// demands, guardrails in XRP (max_value, a daily limit raced by parallel submits), Idempotency-Key
// replay, parallel submits on distinct sequences, provided xrpl_tx_json under
// xrpl_allowed_tx_types (unified sign and submit), LastLedgerSequence passing → failed (its day
// given back), balance.
import { secp256k1 } from '@noble/curves/secp256k1';
import { ECDSA, Wallet, decode, deriveAddress, hashes, verifySignature } from 'xrpl';
import { call, closeDb, db, eventually, operatorAccount, signup, type Account } from '../helpers/api.ts';
import { agentJwt, registerAgent } from '../helpers/agent-fixtures.ts';
import { startXrplNode, type XrplNode } from '../helpers/xrpl-node.ts';

const CHAIN = 'xrp-devnet';
const XRP = 1_000_000n;
let node: XrplNode;
let owner: Account;

type Bot = { id: string; token: string; address: string };
let bot: Bot;

const tx = (b: Bot, body: Record<string, unknown>, opts: { sign?: boolean; key?: string } = {}) =>
  call('POST', `/v1/agents/${b.id}/transactions${opts.sign ? '/sign' : ''}`, {
    token: b.token, body: { chain: CHAIN, ...body }, headers: opts.key ? { 'idempotency-key': opts.key } : {},
  });
const getTx = (b: Bot, id: string) => call('GET', `/v1/agents/${b.id}/transactions/${id}`, { token: b.token });
const recipient = () => Wallet.generate(ECDSA.secp256k1).classicAddress;
const settled = (b: Bot, id: string, want: 'confirmed' | 'failed') => eventually(`transaction ${id} ${want}`, async () => {
  const g = await getTx(b, id);
  if (g.body.status === (want === 'confirmed' ? 'failed' : 'confirmed')) throw new Error(`${g.body.status}: ${g.body.error_message}`);
  return g.body.status === want ? g.body : undefined;
}, 60_000);

async function newBot(guardrails: Record<string, unknown>, fundXrp: bigint, extra: Record<string, unknown> = {}): Promise<Bot> {
  const agent = await registerAgent(owner, { intents_api_enabled: true, per_chain_guardrails: { xrp: guardrails }, ...extra });
  const key = await call('POST', `/v1/agents/${agent.id}/signing-keys`, { token: owner.token, body: { chain: 'xrp' } });
  expect(key.status).toBe(201);
  expect(key.body).toMatchObject({ chain: 'xrp', curve: 'secp256k1' });
  const compressed = Buffer.from(secp256k1.ProjectivePoint.fromHex(key.body.public_key.slice(2)).toRawBytes(true)).toString('hex').toUpperCase();
  expect(key.body.address).toBe(deriveAddress(compressed));
  if (fundXrp > 0n) node.fund(key.body.address, fundXrp * XRP);
  return { id: agent.id, token: await agentJwt(agent), address: key.body.address };
}

beforeAll(async () => {
  node = await startXrplNode({ closeMs: 300 });
  const operator = await operatorAccount('xrp-operator@ops.test');
  const put = await call('PUT', `/v1/admin/chains/${CHAIN}`, { token: operator.token, body: { rpc_url: node.url } });
  expect(put.status).toBe(200);
  expect(put.body).toMatchObject({ family: 'xrp', chain_id: 9000000000203 });
  owner = await signup('xrp-owner');
  // Three agents here: more than the free plan's.
  await db().query("UPDATE organizations SET billing_tier = 'pro' WHERE id = $1", [owner.orgId]);
  bot = await newBot({ max_value: '20' }, 500n, { xrpl_allowed_tx_types: ['TrustSet', 'Payment'] });
}, 120_000);

afterAll(async () => {
  await node?.stop();
  await closeDb();
});

test('the networks and aliases: xrp, xrpl and ripple name the mainnet row', async () => {
  const chains = await call('GET', '/v1/chains', { token: owner.token });
  const names = (chains.body.chains as { name: string }[]).map((c) => c.name);
  expect(names).toEqual(expect.arrayContaining(['xrp', 'xrp-testnet', 'xrp-devnet']));
  const keys = await call('GET', `/v1/agents/${bot.id}/signing-keys`, { token: owner.token });
  expect(keys.body.keys.find((k: { chain: string }) => k.chain === 'xrp').address).toBe(bot.address);
  // The same key for `ripple` (one key per family): a second create is refused as for the other families.
  expect((await call('POST', `/v1/agents/${bot.id}/signing-keys`, { token: owner.token, body: { chain: 'ripple' } })).status).toBe(409);
});

test("the key's balance, read from the server", async () => {
  const b = await call('GET', `/v1/agents/${bot.id}/signing-keys/${CHAIN}/balance`, { token: owner.token });
  expect(b.status).toBe(200);
  expect(b.body).toEqual({ chain: CHAIN, address: bot.address, balance_wei: '500000000', balance_display: '500' });
});

test('a Payment: signed once by the KMS key, verified by the server, confirmed by its workflow; the drops moved', async () => {
  const to = recipient();
  const r = await tx(bot, { to, value: '12.5', destination_tag: 42, memo: 'invoice 7' });
  expect(r.status).toBe(201);
  expect(r.body).toMatchObject({ chain: CHAIN, from: bot.address, to, amount: '12.5', value_wei: '12500000', status: 'signed', fee: '10' });
  expect(verifySignature(r.body.signed_tx)).toBe(true);
  expect(hashes.hashSignedTx(r.body.signed_tx)).toBe(r.body.tx_hash);
  expect(decode(r.body.signed_tx)).toMatchObject({ TransactionType: 'Payment', Account: bot.address, Destination: to, Amount: '12500000', DestinationTag: 42 });
  const done = await settled(bot, r.body.id, 'confirmed');
  expect(done.tx_hash).toBe(r.body.tx_hash);
  expect(done.block_number).toBeGreaterThan(1000);
  expect(node.balance(to)).toBe(12_500_000n);
  expect(node.submissions.filter((s) => s.hash === r.body.tx_hash).every((s) => s.engineResult === 'tesSUCCESS' || s.engineResult === 'tefALREADY')).toBe(true);
});

test('sign-only returns a blob and hash verifiable with xrpl, and sends nothing', async () => {
  const to = recipient();
  const r = await tx(bot, { to, value: '2' }, { sign: true });
  expect(r.status).toBe(200);
  expect(r.body).toMatchObject({ status: 'sign_only', from: bot.address, to, value_wei: '2000000' });
  expect(verifySignature(r.body.signed_tx)).toBe(true);
  expect(hashes.hashSignedTx(r.body.signed_tx)).toBe(r.body.tx_hash);
  expect(node.submissions.some((s) => s.hash === r.body.tx_hash)).toBe(false);
});

test('refused before signing: a destination that requires a tag, bad fields, and max_value in XRP', async () => {
  const tagged = recipient();
  node.requireDestTag(tagged);
  const before = node.submissions.length;
  const noTag = await tx(bot, { to: tagged, value: '1' });
  expect(noTag.status).toBe(422);
  expect(noTag.body.type).toBe('destination_tag_required');
  const withTag = await tx(bot, { to: tagged, value: '1', destination_tag: 1 });
  expect(withTag.status).toBe(201);
  await settled(bot, withTag.body.id, 'confirmed');
  expect(node.submissions.length).toBe(before + 1);
  const over = await tx(bot, { to: recipient(), value: '20.000001' });
  expect(over.status).toBe(403);
  expect(over.body.guardrail).toBe('per_chain_guardrails.xrp.max_value');
  expect((await tx(bot, { to: 'rNotAnAddress', value: '1' })).status).toBe(400);
  expect((await tx(bot, { to: recipient(), value: '0.0000001' })).status).toBe(400);
  expect((await tx(bot, { to: recipient(), value: '1', fee_rate_sat_per_vbyte: 2 })).status).toBe(400);
  expect((await tx(bot, { to: recipient(), value: '1', destination_tag: -1 })).status).toBe(400);
  expect((await tx(bot, { to: recipient(), value: '1000' })).status).toBe(403);
});

test('Idempotency-Key: the same request again is answered from the stored row, nothing signed twice', async () => {
  const to = recipient();
  const key = `xrp-${Date.now()}`;
  const first = await tx(bot, { to, value: '1.5' }, { key });
  expect(first.status).toBe(201);
  const again = await tx(bot, { to, value: '1.5' }, { key });
  expect(again.status).toBe(200);
  expect(again.body.id).toBe(first.body.id);
  expect(again.body.tx_hash).toBe(first.body.tx_hash);
  await settled(bot, first.body.id, 'confirmed');
  expect(node.balance(to)).toBe(1_500_000n);
});

test('parallel submits from one account get distinct sequences and all land', async () => {
  const tos = Array.from({ length: 6 }, recipient);
  const rs = await Promise.all(tos.map((to) => tx(bot, { to, value: '1.1' })));
  expect(rs.map((r) => r.status)).toEqual(tos.map(() => 201));
  const sequences = rs.map((r) => (decode(r.body.signed_tx) as { Sequence: number }).Sequence);
  expect(new Set(sequences).size).toBe(6);
  await Promise.all(rs.map((r) => settled(bot, r.body.id, 'confirmed')));
  for (const to of tos) expect(node.balance(to)).toBe(1_100_000n);
});

test('daily limit in XRP under a race: of 6 parallel 3-XRP submits only 3 fit in 10 XRP, and those land', async () => {
  const racer = await newBot({ max_value: '5', daily_limit: '10' }, 100n);
  const rs = await Promise.all(Array.from({ length: 6 }, () => tx(racer, { to: recipient(), value: '3' })));
  const ok = rs.filter((r) => r.status === 201);
  expect(ok).toHaveLength(3);
  for (const r of rs.filter((x) => x.status !== 201)) {
    expect(r.status).toBe(403);
    expect(r.body.guardrail).toBe('per_chain_guardrails.xrp.daily_limit');
  }
  await Promise.all(ok.map((r) => settled(racer, r.body.id, 'confirmed')));
  expect(node.balance(racer.address)).toBe(100n * XRP - 9n * XRP - 30n);
});

test('unified sign of a provided xrpl_tx_json: allowed type and the agent\'s Account only; submit of one lands', async () => {
  const sign = (body: Record<string, unknown>) => call('POST', `/v1/agents/${bot.id}/sign`, { token: bot.token, body: { chain: CHAIN, intent_type: 'transaction', ...body } });
  const trust = { TransactionType: 'TrustSet', Account: bot.address, LimitAmount: { currency: 'USD', issuer: recipient(), value: '100' } };
  const s = await sign({ xrpl_tx_json: trust });
  expect(s.status).toBe(200);
  expect(s.body).toMatchObject({ intent_type: 'transaction', chain: CHAIN, from: bot.address });
  expect(verifySignature(s.body.signed_tx)).toBe(true);
  expect(hashes.hashSignedTx(s.body.signed_tx)).toBe(s.body.tx_hash);
  expect((decode(s.body.signed_tx) as { TxnSignature: string }).TxnSignature).toBe(s.body.signature);
  const wrongAccount = await sign({ xrpl_tx_json: { ...trust, Account: recipient() } });
  expect(wrongAccount.status).toBe(400);
  const offer = await sign({ xrpl_tx_json: { TransactionType: 'OfferCreate', Account: bot.address, TakerGets: '1000000', TakerPays: { currency: 'USD', issuer: recipient(), value: '1' } } });
  expect(offer.status).toBe(403);
  expect(offer.body.guardrail).toBe('xrpl_allowed_tx_types');
  // A provided Payment is under the guardrails like a transfer.
  const big = await sign({ xrpl_tx_json: { TransactionType: 'Payment', Account: bot.address, Destination: recipient(), Amount: '25000000' } });
  expect(big.status).toBe(403);
  expect(big.body.guardrail).toBe('per_chain_guardrails.xrp.max_value');

  const submitted = await tx(bot, { xrpl_tx_json: trust });
  expect(submitted.body).toMatchObject({ status: 'signed' });
  expect(submitted.status).toBe(201);
  await settled(bot, submitted.body.id, 'confirmed');
  expect(node.account(bot.address)!.ownerCount).toBe(1);
  expect((await tx(bot, { xrpl_tx_json: trust, to: recipient() })).status).toBe(400);
});

test('a transaction the server lost fails once LastLedgerSequence passes, is never re-signed, and gives its day back', async () => {
  const limited = await newBot({ daily_limit: '1.5' }, 50n);
  const to = recipient();
  node.dropNextSubmit();
  const r = await tx(limited, { to, value: '1' });
  expect(r.status).toBe(201);
  const lls = (decode(r.body.signed_tx) as { LastLedgerSequence: number }).LastLedgerSequence;
  await eventually('the lost submit reported broadcast', async () => ((await getTx(limited, r.body.id)).body.status === 'broadcast' ? true : undefined), 30_000);
  node.closeLedger(lls - node.validatedLedger() + 1);
  const done = await settled(limited, r.body.id, 'failed');
  expect(done.error_message).toContain('LastLedgerSequence');
  expect(done.tx_hash).toBe(r.body.tx_hash);
  expect(node.balance(to)).toBe(0n);
  expect(new Set(node.submissions.filter((s) => (s.tx as { Destination?: string }).Destination === to).map((s) => s.hash)).size).toBe(1);
  // Nothing moved: the 1 XRP is back in the day's 1.5, and the sequence is used again.
  const again = await tx(limited, { to, value: '1' });
  expect(again.status).toBe(201);
  expect((decode(again.body.signed_tx) as { Sequence: number }).Sequence).toBe((decode(r.body.signed_tx) as { Sequence: number }).Sequence);
  await settled(limited, again.body.id, 'confirmed');
  expect(node.balance(to)).toBe(1_000_000n);
});
