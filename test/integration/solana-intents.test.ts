// Solana through the Intents API (issue 32 §3), against the real Solana runtime (litesvm behind a
// JSON-RPC server, test/helpers/svm-node.ts): an agent's solana key (Ed25519 in the KMS), SOL and
// SPL token transfers (the recipient's token account created when the agent allows it) signed
// once and confirmed by the `tx:<id>` workflow; guardrails in SOL, the token allowlist and the
// ATA allowlist; a transaction lost while its blockhash expired is rebuilt, re-signed and lands.
import { ed25519 } from '@noble/curves/ed25519';
import { Keypair, PublicKey, SystemProgram, Transaction } from '@solana/web3.js';
import { base58Decode } from '../../domain/intents/families/solana/base58.ts';
import { call, closeDb, db, eventually, operatorAccount, signup, type Account } from '../helpers/api.ts';
import { agentJwt, registerAgent } from '../helpers/agent-fixtures.ts';
import { startSvmNode, type SvmNode } from '../helpers/svm-node.ts';

const CHAIN = 'solana-localnet';
const SOL = 1_000_000_000n;
const bs58decode = (s: string): Uint8Array => base58Decode(s)!;
let node: SvmNode;
let owner: Account;
let agentId: string;
let agentToken: string;
let agentAddress: string;

const tx = (body: Record<string, unknown>, sign = false) =>
  call('POST', `/v1/agents/${agentId}/transactions${sign ? '/sign' : ''}`, { token: agentToken, body: { chain: CHAIN, ...body } });
const getTx = (id: string) => call('GET', `/v1/agents/${agentId}/transactions/${id}`, { token: agentToken });
const recipient = () => Keypair.generate().publicKey.toBase58();
const confirmed = (id: string) => eventually(`transaction ${id} confirmed`, async () => {
  const g = await getTx(id);
  if (g.body.status === 'failed') throw new Error(`failed: ${g.body.error_message}`);
  return g.body.status === 'confirmed' ? g.body : undefined;
}, 60_000);

beforeAll(async () => {
  node = await startSvmNode();
  const operator = await operatorAccount('solana-operator@ops.test');
  expect((await call('PUT', `/v1/admin/chains/${CHAIN}`, { token: operator.token, body: { rpc_url: node.url } })).status).toBe(200);
  owner = await signup('sol-owner');
  const agent = await registerAgent(owner, { intents_api_enabled: true, per_chain_guardrails: { solana: { max_value: '3', daily_limit: '5' } } });
  agentId = agent.id;
  agentToken = await agentJwt(agent);
  const key = await call('POST', `/v1/agents/${agentId}/signing-keys`, { token: owner.token, body: { chain: 'solana' } });
  expect(key.status).toBe(201);
  expect(key.body).toMatchObject({ chain: 'solana', curve: 'ed25519' });
  agentAddress = key.body.address;
  node.airdrop(agentAddress, 20n * SOL);
}, 120_000);

afterAll(async () => {
  await node?.stop();
  await closeDb();
});

test("the key's balance, read from the node", async () => {
  const b = await call('GET', `/v1/agents/${agentId}/signing-keys/${CHAIN}/balance`, { token: owner.token });
  expect(b.body).toEqual({ chain: CHAIN, address: agentAddress, balance_wei: '20000000000', balance_display: '20' });
});

test('SOL: submitted, signed once by the Ed25519 key, confirmed by its workflow; the lamports moved', async () => {
  const to = recipient();
  const r = await tx({ to, value: '1.25' });
  expect(r.status).toBe(201);
  expect(r.body).toMatchObject({ chain: CHAIN, from: agentAddress, to, amount: '1.25', value_wei: '1250000000', status: 'signed' });
  // The signature over the message verifies under the agent's public key (the chain library's check, then noble's).
  const wire = Transaction.from(Buffer.from(r.body.signed_tx, 'base64'));
  expect(wire.verifySignatures()).toBe(true);
  expect(wire.feePayer!.toBase58()).toBe(agentAddress);
  expect(ed25519.verify(wire.signature!, wire.serializeMessage(), wire.feePayer!.toBytes())).toBe(true);
  const done = await confirmed(r.body.id);
  expect(done.tx_hash).toBe(r.body.tx_hash);
  expect(node.balance(to)).toBe(1_250_000_000n);
});

test('SPL token: the recipient\'s token account is created and the tokens land; token_allowlist and ata_allowlist refuse', async () => {
  const mint = node.createMint(6);
  node.mintTo(mint, agentAddress, 1_000_000_000n);
  const to = recipient();
  const r = await tx({ to, value: '12.5', token_mint: mint, token_decimals: 6 });
  expect(r.status).toBe(201);
  expect(r.body).toMatchObject({ token_mint: mint, amount: '12.5', value_wei: '12500000' });
  await confirmed(r.body.id);
  expect(node.tokenBalance(mint, to)).toBe(12_500_000n);

  const allowlisted = await call('PATCH', `/v1/agents/${agentId}`, {
    token: owner.token, body: { per_chain_guardrails: { solana: { max_value: '3', daily_limit: '5', token_allowlist: [], ata_allowlist: [] } } },
  });
  expect(allowlisted.status).toBe(200);
  expect(allowlisted.body.per_chain_guardrails.solana).toMatchObject({ token_allowlist: [], ata_allowlist: [] });
  const refused = await tx({ to: recipient(), value: '1', token_mint: mint, token_decimals: 6 });
  expect(refused.status).toBe(403);
  expect(refused.body.guardrail).toBe('per_chain_guardrails.solana.token_allowlist');
  await call('PATCH', `/v1/agents/${agentId}`, {
    token: owner.token, body: { per_chain_guardrails: { solana: { max_value: '3', daily_limit: '5', token_allowlist: [mint], ata_allowlist: [] } } },
  });
  // The recipient has no token account and the agent may create none: not created, so refused before signing.
  const noAccount = await tx({ to: recipient(), value: '1', token_mint: mint, token_decimals: 6 });
  expect(noAccount.status).toBe(422);
  const explicit = await tx({ to: recipient(), value: '1', token_mint: mint, token_decimals: 6, create_recipient_token_account: true });
  expect(explicit.status).toBe(403);
  expect(explicit.body.guardrail).toBe('per_chain_guardrails.solana.ata_allowlist');
  // To the account created above: allowed.
  const existing = await tx({ to, value: '0.5', token_mint: mint, token_decimals: 6 });
  expect(existing.status).toBe(201);
  await confirmed(existing.body.id);
  expect(node.tokenBalance(mint, to)).toBe(13_000_000n);
});

test('guardrails in SOL: over max_value, then over the daily limit, are 403s naming them; bad input is a 400', async () => {
  const over = await tx({ to: recipient(), value: '3.5' });
  expect(over.status).toBe(403);
  expect(over.body.guardrail).toBe('per_chain_guardrails.solana.max_value');
  expect((await tx({ to: 'not-an-address', value: '1' })).status).toBe(400);
  expect((await tx({ to: recipient(), value: '1', fee_rate_sat_per_vbyte: 3 })).status).toBe(400);
  expect((await tx({ to: recipient(), value: '0.0000000001' })).status).toBe(400);
  // 1.25 SOL sent today; 3 more fit in the 5 SOL limit, then 1 more does not.
  expect((await tx({ to: recipient(), value: '3' }, true)).status).toBe(200);
  const daily = await tx({ to: recipient(), value: '1' }, true);
  expect(daily.status).toBe(403);
  expect(daily.body.guardrail).toBe('per_chain_guardrails.solana.daily_limit');
});

test('a transaction lost while its blockhash expired is rebuilt on a fresh blockhash, signed once more and lands; the expired bytes never do', async () => {
  await call('PATCH', `/v1/agents/${agentId}`, { token: owner.token, body: { per_chain_guardrails: { solana: { max_value: '3' } } } });
  const to = recipient();
  node.loseNextSend();
  const r = await tx({ to, value: '0.5' });
  expect(r.status).toBe(201);
  await eventually('the lost send to be reported broadcast', async () => ((await getTx(r.body.id)).body.status === 'broadcast' ? true : undefined), 30_000);
  expect(node.balance(to)).toBe(0n);
  node.expireBlockhash();
  const done = await confirmed(r.body.id);
  expect(done.tx_hash).not.toBe(r.body.tx_hash);
  expect(node.balance(to)).toBe(500_000_000n);
});

test('unified sign: a message (verified with ed25519) and, with raw_signing_enabled, a provided transaction whose fee payer is the agent', async () => {
  const sign = (body: Record<string, unknown>) => call('POST', `/v1/agents/${agentId}/sign`, { token: agentToken, body: { chain: CHAIN, ...body } });
  const pub = new PublicKey(agentAddress).toBytes();
  const msg = await sign({ intent_type: 'personal_sign', message: 'hello from the agent' });
  expect(msg.status).toBe(200);
  expect(msg.body).toMatchObject({ intent_type: 'personal_sign', chain: CHAIN, from: agentAddress, signed_tx: null });
  expect(ed25519.verify(bs58decode(msg.body.signature), Buffer.from('hello from the agent'), pub)).toBe(true);

  const transfer = () => {
    const t = new Transaction({ feePayer: new PublicKey(agentAddress), recentBlockhash: node.svm.latestBlockhash() });
    t.add(SystemProgram.transfer({ fromPubkey: new PublicKey(agentAddress), toPubkey: Keypair.generate().publicKey, lamports: 1000 }));
    return t;
  };
  // A transaction message passed off as a message is refused.
  expect((await sign({ intent_type: 'personal_sign', message: `0x${transfer().serializeMessage().toString('hex')}` })).status).toBe(400);
  const raw = transfer().serialize({ requireAllSignatures: false }).toString('base64');
  const blind = await sign({ intent_type: 'transaction', raw_transaction: raw });
  expect(blind.status).toBe(403);
  expect(blind.body.detail).toMatch(/raw_signing_enabled/);
  expect((await call('PATCH', `/v1/agents/${agentId}`, { token: owner.token, body: { raw_signing_enabled: true } })).status).toBe(200);
  const signed = await sign({ intent_type: 'transaction', raw_transaction: raw });
  expect(signed.status).toBe(200);
  expect(signed.body).toMatchObject({ intent_type: 'transaction', from: agentAddress, fully_signed: true });
  const wire = Transaction.from(Buffer.from(signed.body.signed_tx, 'base64'));
  expect(wire.verifySignatures()).toBe(true);
  // Another fee payer: refused, nothing signed.
  const other = new Transaction({ feePayer: Keypair.generate().publicKey, recentBlockhash: node.svm.latestBlockhash() });
  other.add(SystemProgram.transfer({ fromPubkey: new PublicKey(agentAddress), toPubkey: Keypair.generate().publicKey, lamports: 1 }));
  expect((await sign({ intent_type: 'transaction', raw_transaction: other.serialize({ requireAllSignatures: false }).toString('base64') })).status).toBe(400);
  // EVM chains take no raw_transaction.
  expect((await call('POST', `/v1/agents/${agentId}/sign`, { token: agentToken, body: { chain: 'ethereum', intent_type: 'transaction', raw_transaction: raw } })).status).toBe(400);
});

test('the daily limit under 10 parallel requests: exactly as many pass as fit, the rest are 403', async () => {
  const racer = await registerAgent(owner, { intents_api_enabled: true, per_chain_guardrails: { solana: { daily_limit: '1' } } });
  const racerToken = await agentJwt(racer);
  const key = await call('POST', `/v1/agents/${racer.id}/signing-keys`, { token: owner.token, body: { chain: 'solana' } });
  node.airdrop(key.body.address, 10n * SOL);
  const answers = await Promise.all(Array.from({ length: 10 }, () => call('POST', `/v1/agents/${racer.id}/transactions/sign`, {
    token: racerToken, body: { chain: CHAIN, to: recipient(), value: '0.25' },
  })));
  expect(answers.filter((a) => a.status === 200)).toHaveLength(4);
  expect(answers.filter((a) => a.status === 403).every((a) => a.body.guardrail === 'per_chain_guardrails.solana.daily_limit')).toBe(true);
  expect(answers.filter((a) => a.status === 403)).toHaveLength(6);
});

test('tx_max_per_day after the daily spend in the one recording statement: refused whole, the refused transfer leaves no spend behind', async () => {
  const cappedOwner = await signup('sol-capped'); // the owner's plan has room for no more agents
  const capped = await registerAgent(cappedOwner, { intents_api_enabled: true, tx_max_per_day: 2, per_chain_guardrails: { solana: { daily_limit: '10' } } });
  const cappedToken = await agentJwt(capped);
  const key = await call('POST', `/v1/agents/${capped.id}/signing-keys`, { token: cappedOwner.token, body: { chain: 'solana' } });
  node.airdrop(key.body.address, 10n * SOL);
  const signOnly = () => call('POST', `/v1/agents/${capped.id}/transactions/sign`, { token: cappedToken, body: { chain: CHAIN, to: recipient(), value: '0.5' } });
  const answers = await Promise.all(Array.from({ length: 5 }, signOnly));
  expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 403, 403, 403]);
  expect(answers.filter((a) => a.status === 403).every((a) => a.body.guardrail === 'tx_max_per_day')).toBe(true);
  // Both signed transfers are valid bytes for the chain (built from the briefly kept blockhash and fee): they land.
  for (const a of answers.filter((x) => x.status === 200)) {
    const sent = await fetch(node.url, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'sendTransaction', params: [a.body.signed_tx, { encoding: 'base64' }] }),
    }).then((r) => r.json() as Promise<{ result?: string; error?: unknown }>);
    expect(sent).toEqual({ jsonrpc: '2.0', id: 1, result: a.body.tx_hash });
  }
  const spent = await db().query("SELECT spent::text AS spent FROM agent_family_daily_usage WHERE agent_id = $1 AND family = 'solana'", [capped.id]);
  expect(spent.rows).toEqual([{ spent: '1000000000' }]);
  const rows = await db().query('SELECT count(*)::int AS n FROM agent_transactions WHERE agent_id = $1', [capped.id]);
  expect(rows.rows[0].n).toBe(2);
});
