// The unified sign endpoint, POST /v1/agents/{agent_id}/sign (spec §4.9; reference signIntent):
// every intent signed by the agent's key in the stack's key backend and checked with viem
// (the signature recovers to the key's address), one EIP-1559 transaction accepted and mined by a
// real EVM node (test/helpers/evm-node.ts), the EIP-712 domain policy, and the refusals: who may
// sign, the agent's switches, and bad input (400 naming the field, nothing signed). Runs on both KMS backends (npm run test:pkcs11).
import { randomBytes } from 'node:crypto';
import {
  createPublicClient, getAddress, http, keccak256, parseEther, parseGwei, parseTransaction, recoverAddress,
  recoverMessageAddress, recoverTransactionAddress, recoverTypedDataAddress, toHex, type Hex, type PublicClient,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { call, closeDb, db, joinAsMember, signup, type Account } from '../helpers/api.ts';
import { agentJwt, auditFor, patchAgent, registerAgent, type Agent } from '../helpers/agent-fixtures.ts';
import { isProblem } from '../helpers/vault-fixtures.ts';
import { startEvmNode, type EvmNode } from '../helpers/evm-node.ts';

/** The node runs as Sepolia, a chain the service knows, so `chain: "sepolia"` signs for it. */
const CHAIN = 'sepolia';
const CHAIN_ID = 11155111;
const DEAD = '0x000000000000000000000000000000000000dEaD';

const signUrl = (agentId: string) => `/v1/agents/${agentId}/sign`;
const sign = (token: string, agentId: string, body: unknown) => call('POST', signUrl(agentId), { token, body });

const TYPED_DATA = {
  types: {
    EIP712Domain: [{ name: 'name', type: 'string' }, { name: 'version', type: 'string' }, { name: 'chainId', type: 'uint256' }, { name: 'verifyingContract', type: 'address' }],
    Person: [{ name: 'name', type: 'string' }, { name: 'wallet', type: 'address' }],
    Mail: [{ name: 'from', type: 'Person' }, { name: 'to', type: 'Person[]' }, { name: 'contents', type: 'string' }, { name: 'amount', type: 'uint256' }],
  },
  primaryType: 'Mail',
  domain: { name: 'Ether Mail', version: '1', chainId: CHAIN_ID, verifyingContract: '0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC' },
  message: {
    from: { name: 'Cow', wallet: '0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826' },
    to: [{ name: 'Bob', wallet: '0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB' }],
    contents: 'Hello, Bob!',
    amount: '1000000000000000000000000',
  },
};

let owner: Account;
let member: Account;
let stranger: Account;
let agent: Agent;
let token: string;
let address: string;
let node: EvmNode;
let client: PublicClient;

beforeAll(async () => {
  owner = await signup('sign-owner');
  member = await joinAsMember(owner, 'sign-member');
  stranger = await signup('sign-stranger');
  // Billing has no API yet: the Pro plan's agent cap, for the agents this file registers.
  await db().query("UPDATE organizations SET billing_tier = 'pro' WHERE id = $1", [owner.orgId]);
  agent = await registerAgent(owner, { intents_api_enabled: true });
  token = await agentJwt(agent);
  const key = await call('POST', `/v1/agents/${agent.id}/signing-keys`, { token: owner.token, body: { chain: 'ethereum' } });
  expect(key.status).toBe(201);
  address = key.body.address;
  node = await startEvmNode({ chainId: CHAIN_ID });
  client = createPublicClient({ transport: http(node.url), pollingInterval: 50 });
});
afterAll(async () => {
  await node?.stop();
  await closeDb();
});

/** Signs and checks the answer's common shape. */
async function signed(body: Record<string, unknown>, as = token): Promise<any> {
  const r = await sign(as, agent.id, body);
  expect({ status: r.status, body: r.body }).toEqual({ status: 200, body: expect.any(Object) });
  expect(r.body.from).toBe(address);
  expect(r.body.signature).toMatch(/^0x[0-9a-f]{130}$/);
  return r.body;
}

const txBase = { intent_type: 'transaction', chain: CHAIN, to: DEAD, value: '0.001', data: '0x', nonce: 7, gas_limit: 100_000 };
const eip1559 = { max_fee_per_gas: '2000000000', max_priority_fee_per_gas: '1000000000' };

describe('every intent recovers to the agent key', () => {
  test('personal_sign (EIP-191): UTF-8 text and 0x-hex bytes', async () => {
    const text = await signed({ intent_type: 'personal_sign', chain: CHAIN, message: 'hello agent' });
    expect(text).toEqual({
      intent_type: 'personal_sign', chain: CHAIN, from: address, signature: expect.any(String), signed_tx: null, tx_hash: null,
      message_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/), typed_data_hash: null, tx_type: null,
    });
    expect(await recoverMessageAddress({ message: 'hello agent', signature: text.signature })).toBe(address);
    const bytes = await signed({ intent_type: 'personal_sign', chain: 'ethereum', message: toHex('hello agent') });
    expect(bytes.chain).toBe('ethereum');
    expect(bytes.message_hash).toBe(text.message_hash);
    expect(await recoverMessageAddress({ message: { raw: toHex('hello agent') }, signature: bytes.signature })).toBe(address);
  });

  test('typed_data (EIP-712), with integers as text', async () => {
    const r = await signed({ intent_type: 'typed_data', chain: CHAIN_ID, typed_data: TYPED_DATA });
    expect(r).toMatchObject({ intent_type: 'typed_data', chain: CHAIN, message_hash: null, signed_tx: null, typed_data_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    const typed = { ...TYPED_DATA, message: { ...TYPED_DATA.message, amount: 10n ** 24n } };
    expect(await recoverTypedDataAddress({ ...typed, signature: r.signature } as any)).toBe(address);
  });

  test('eip712_digest (alias digest) once a human turns raw signing on', async () => {
    const hash = keccak256(randomBytes(32));
    isProblem(await sign(token, agent.id, { intent_type: 'eip712_digest', chain: CHAIN, hash }), 403);
    const on = await patchAgent(owner, agent.id, { raw_signing_enabled: true });
    expect(on.body).toMatchObject({ raw_signing_enabled: true, message_signing_enabled: true });
    for (const intent of ['eip712_digest', 'digest']) {
      const r = await signed({ intent_type: intent, chain: CHAIN, hash });
      expect(r).toMatchObject({ intent_type: 'eip712_digest', typed_data_hash: hash });
      expect(await recoverAddress({ hash, signature: r.signature })).toBe(address);
    }
    expect((await patchAgent(owner, agent.id, { raw_signing_enabled: false })).body.raw_signing_enabled).toBe(false);
  });

  test.each([
    [0, 'legacy', { gas_price: '1000000000' }],
    [1, 'eip2930', { gas_price: '0x3b9aca00', access_list: [{ address: DEAD, storage_keys: [keccak256('0x01')] }] }],
    [2, 'eip1559', eip1559],
    [3, 'eip4844', { ...eip1559, max_fee_per_blob_gas: 1, blob_versioned_hashes: [`0x01${'ab'.repeat(31)}`] }],
  ])('transaction type %i (%s): parses, carries the chain id and recovers to the key', async (txType, name, fields) => {
    const r = await signed({ ...txBase, tx_type: txType, ...fields });
    expect(r).toMatchObject({ intent_type: 'transaction', chain: CHAIN, tx_type: txType, message_hash: null, typed_data_hash: null });
    expect(r.tx_hash).toBe(keccak256(r.signed_tx));
    const tx = parseTransaction(r.signed_tx);
    expect(tx).toMatchObject({ type: name, chainId: CHAIN_ID, nonce: 7, gas: 100_000n, to: DEAD.toLowerCase(), value: parseEther('0.001') });
    expect(await recoverTransactionAddress({ serializedTransaction: r.signed_tx })).toBe(address);
  });

  test('transaction type 4 (EIP-7702): the authorization signed by its own authority is carried as is', async () => {
    const authority = privateKeyToAccount(toHex(randomBytes(32)));
    const auth = await authority.signAuthorization({ address: DEAD, chainId: CHAIN_ID, nonce: 0 });
    const r = await signed({
      ...txBase, ...eip1559, tx_type: 4,
      authorization_list: [{ address: auth.address, chain_id: auth.chainId, nonce: auth.nonce, r: auth.r, s: auth.s, y_parity: auth.yParity }],
    });
    const tx = parseTransaction(r.signed_tx) as any;
    expect(tx.type).toBe('eip7702');
    expect(tx.authorizationList).toEqual([expect.objectContaining({ address: DEAD.toLowerCase(), chainId: CHAIN_ID, nonce: 0, r: auth.r, s: auth.s })]);
    expect(await recoverTransactionAddress({ serializedTransaction: r.signed_tx })).toBe(address);
  });

  test('the owner may sign for the agent too (its human); every signature is audited without a key, a transaction emits agent.transaction.signed', async () => {
    const r = await signed({ ...txBase, ...eip1559, nonce: 99 }, owner.token);
    expect(r.tx_type).toBe(2); // inferred from the fee fields
    const events = await db().query("SELECT payload FROM event_outbox WHERE event_type = 'agent.transaction.signed' AND payload->>'tx_hash' = $1", [r.tx_hash]);
    expect(events.rows).toEqual([{ payload: expect.objectContaining({ agent_id: agent.id, chain: CHAIN, chain_id: CHAIN_ID, from: address, nonce: 99, tx_type: 2, status: 'sign_only', value_wei: parseEther('0.001').toString() }) }]);
    const audits = await auditFor(owner, 'agent.sign', agent.id);
    expect(audits.length).toBeGreaterThanOrEqual(10);
    const mine = audits.find((a) => a.details.tx_hash === r.tx_hash);
    expect(mine).toMatchObject({ actor_type: 'user', details: { intent_type: 'transaction', chain: CHAIN, address, tx_type: 2 } });
    expect(JSON.stringify(audits)).not.toMatch(/private_key|local-ec:|pkcs11-ec:|hello agent/);
  });
});

describe('a real EVM node accepts a signed transaction', () => {
  test('type 2, signed here and sent with eth_sendRawTransaction, is mined with status success', async () => {
    await node.fund(address, parseEther('1'));
    const block = await client.getBlock();
    const nonce = await client.getTransactionCount({ address: address as Hex });
    const to = getAddress(toHex(randomBytes(20)));
    const r = await signed({
      intent_type: 'transaction', chain: CHAIN, tx_type: 2, to, value: '0.25', nonce, gas_limit: 21_000,
      max_fee_per_gas: (block.baseFeePerGas! * 2n + parseGwei('1')).toString(), max_priority_fee_per_gas: parseGwei('1').toString(),
    });
    const hash = await client.sendRawTransaction({ serializedTransaction: r.signed_tx });
    expect(hash).toBe(r.tx_hash);
    const receipt = await client.waitForTransactionReceipt({ hash, timeout: 10_000 });
    expect(receipt.status).toBe('success');
    expect(getAddress(receipt.from)).toBe(address);
    expect(await client.getBalance({ address: to })).toBe(parseEther('0.25'));
  });
});

describe('EIP-712 domains (eip712_default_policy, eip712_domain_allowlist)', () => {
  const domainOf = (over: Record<string, unknown>) => ({ ...TYPED_DATA, domain: { ...TYPED_DATA.domain, ...over } });
  const OTHER_CONTRACT = '0x1111111111111111111111111111111111111111';

  test('allow (the default) signs any domain; deny signs only what an entry matches; the record shows both; the switch back works', async () => {
    const bot = await registerAgent(owner, { intents_api_enabled: true });
    expect((await call('POST', `/v1/agents/${bot.id}/signing-keys`, { token: owner.token, body: { chain: 'ethereum' } })).status).toBe(201);
    const botToken = await agentJwt(bot);
    const typed = (data: unknown) => sign(botToken, bot.id, { intent_type: 'typed_data', chain: CHAIN, typed_data: data });
    expect((await call('GET', `/v1/agents/${bot.id}`, { token: owner.token })).body).toMatchObject({ eip712_default_policy: 'allow', eip712_domain_allowlist: [] });
    expect((await typed(domainOf({ verifyingContract: OTHER_CONTRACT }))).status).toBe(200);

    // One contract on one chain (address in another case, chainId as text), and an application by name.
    const allowlist = [{ verifyingContract: TYPED_DATA.domain.verifyingContract.toLowerCase(), chainId: String(CHAIN_ID) }, { name: 'Trusted App', version: '2' }];
    const patched = await patchAgent(owner, bot.id, { eip712_default_policy: 'deny', eip712_domain_allowlist: allowlist });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ // the address kept in its checksummed spelling
      eip712_default_policy: 'deny', eip712_domain_allowlist: [{ ...allowlist[0], verifyingContract: TYPED_DATA.domain.verifyingContract }, allowlist[1]],
    });

    const ok = await typed(TYPED_DATA);
    expect(ok.status).toBe(200);
    expect(await recoverTypedDataAddress({ ...(TYPED_DATA as any), signature: ok.body.signature })).toBe(getAddress(ok.body.from));
    expect((await typed(domainOf({ name: 'Trusted App', version: '2', verifyingContract: OTHER_CONTRACT, chainId: 1 }))).status).toBe(200);

    for (const refused of [
      domainOf({ verifyingContract: OTHER_CONTRACT }), // another contract
      domainOf({ chainId: 1 }), // the same contract on another chain
      domainOf({ name: 'Trusted App', version: '3', verifyingContract: OTHER_CONTRACT }), // the app's other version
    ]) {
      const r = await typed(refused);
      isProblem(r, 403);
      expect(r.body.detail).toContain('eip712_domain_allowlist');
    }
    // Messages and transactions are not domain-bound: unchanged.
    expect((await sign(botToken, bot.id, { intent_type: 'personal_sign', chain: CHAIN, message: 'hello' })).status).toBe(200);

    expect((await patchAgent(owner, bot.id, { eip712_default_policy: 'allow' })).status).toBe(200);
    expect((await typed(domainOf({ verifyingContract: OTHER_CONTRACT }))).status).toBe(200);
  });

  test('entries that name nothing, name other fields or carry bad values are a 400 naming the field, and change nothing', async () => {
    const bot = await registerAgent(owner, { intents_api_enabled: true });
    for (const [body, field] of [
      [{ eip712_domain_allowlist: [{}] }, 'eip712_domain_allowlist.0'],
      [{ eip712_domain_allowlist: [{ contract: DEAD }] }, 'eip712_domain_allowlist.0'],
      [{ eip712_domain_allowlist: [{ verifyingContract: 'not-an-address' }] }, 'eip712_domain_allowlist.0.verifyingContract'],
      [{ eip712_domain_allowlist: [{ chainId: -1 }] }, 'eip712_domain_allowlist.0.chainId'],
      [{ eip712_domain_allowlist: [{ salt: '0x12' }] }, 'eip712_domain_allowlist.0.salt'],
      [{ eip712_domain_allowlist: { name: 'x' } }, 'eip712_domain_allowlist'],
      [{ eip712_default_policy: 'block' }, 'eip712_default_policy'],
    ] as const) {
      const r = await patchAgent(owner, bot.id, body);
      isProblem(r, 400);
      expect(JSON.stringify(r.body.errors)).toContain(field);
    }
    expect((await call('GET', `/v1/agents/${bot.id}`, { token: owner.token })).body).toMatchObject({ eip712_default_policy: 'allow', eip712_domain_allowlist: [] });
    // Members and the agent itself cannot change them.
    expect((await patchAgent(member, bot.id, { eip712_default_policy: 'deny' })).status).toBe(403);
  });
});

describe('refusals', () => {
  const personal = { intent_type: 'personal_sign', chain: CHAIN, message: 'hi' };

  test('an agent without the Intents API, another agent, a member: 403; another organization: 404', async () => {
    const plain = await registerAgent(owner);
    const plainToken = await agentJwt(plain);
    const r = await sign(plainToken, plain.id, personal);
    isProblem(r, 403);
    expect(r.body.detail).toContain('intents_api_enabled');
    const sibling = await registerAgent(owner, { intents_api_enabled: true });
    isProblem(await sign(await agentJwt(sibling), agent.id, personal), 403);
    isProblem(await sign(member.token, agent.id, personal), 403);
    isProblem(await sign(stranger.token, agent.id, personal), 404);
    // The owner cannot sign for an agent whose Intents API is off either.
    isProblem(await sign(owner.token, plain.id, personal), 403);
  });

  test('personal_sign switched off by a human: 403 naming message_signing_enabled', async () => {
    expect((await patchAgent(owner, agent.id, { message_signing_enabled: false })).status).toBe(200);
    const r = await sign(token, agent.id, personal);
    isProblem(r, 403);
    expect(r.body.detail).toContain('message_signing_enabled');
    expect((await patchAgent(owner, agent.id, { message_signing_enabled: true })).status).toBe(200);
  });

  test('bad input: 400 naming the field, and nothing signed or audited', async () => {
    const before = (await auditFor(owner, 'agent.sign', agent.id)).length;
    const bad: [Record<string, unknown>, string][] = [
      [{ ...TYPED_DATA, message: { ...TYPED_DATA.message, from: { name: 'Cow', wallet: 'not-an-address' } } }, 'typed_data.message.from.wallet'],
      [{ ...TYPED_DATA, primaryType: 'Nope' }, 'typed_data.primaryType'],
      [{ ...TYPED_DATA, types: { ...TYPED_DATA.types, Mail: [{ name: 'x', type: 'NoSuchType' }] }, message: { x: 1 } }, 'typed_data.message.x'],
    ];
    for (const [typedData, field] of bad) {
      const r = await sign(token, agent.id, { intent_type: 'typed_data', chain: CHAIN, typed_data: typedData });
      isProblem(r, 400);
      expect(r.body.errors).toEqual([{ field, message: expect.any(String) }]);
    }
    const cases: [Record<string, unknown>, string][] = [
      [{ ...txBase, ...eip1559, nonce: undefined }, 'nonce'],
      [{ ...txBase, ...eip1559, gas_limit: undefined }, 'gas_limit'],
      [{ ...txBase, tx_type: 2, max_priority_fee_per_gas: '1' }, 'max_fee_per_gas'],
      [{ ...txBase, ...eip1559, gas_price: '1', tx_type: 2 }, 'gas_price'],
      [{ ...txBase, ...eip1559, chain: 'dogechain' }, 'chain'],
      [{ ...txBase, ...eip1559, chain: 424242 }, 'chain'],
      [{ ...txBase, ...eip1559, chain: 'cardano' }, 'chain'], // no unified sign on Cardano
      [{ ...txBase, ...eip1559, chain: 'bitcoin' }, 'raw_transaction'], // on Bitcoin, a transaction is a PSBT
      [{ ...txBase, ...eip1559, to: '0x1234' }, 'to'],
      [{ ...txBase, ...eip1559, value: '1e18' }, 'value'],
      [{ ...txBase, ...eip1559, tx_type: 3 }, 'max_fee_per_blob_gas'],
      [{ ...txBase, ...eip1559, tx_type: 4 }, 'authorization_list'],
      [{ ...txBase, ...eip1559, tx_type: 4, authorization_list: [{ address: DEAD, chain_id: 1, nonce: 0, r: '0x01', s: '0x01', y_parity: 0 }] }, 'authorization_list.0.chain_id'],
      [{ ...txBase, ...eip1559, tx_type: 4, authorization_list: [{ chain_id: 0, nonce: 0, r: '0x01', s: '0x01', y_parity: 0 }] }, 'authorization_list.0.address'],
      [{ intent_type: 'personal_sign', chain: CHAIN }, 'message'],
      [{ intent_type: 'personal_sign', chain: CHAIN, message: '0xabc' }, 'message'],
      [{ intent_type: 'sign_everything', chain: CHAIN }, 'intent_type'],
      [{ intent_type: 'personal_sign', message: 'hi' }, 'chain'],
      [{ intent_type: 'personal_sign', chain: CHAIN, message: 'hi', signing_key_path: 'keys/ethereum-signer' }, 'signing_key_path'],
    ];
    for (const [body, field] of cases) {
      const r = await sign(token, agent.id, body);
      isProblem(r, 400);
      expect({ field, errors: r.body.errors }).toEqual({ field, errors: [expect.objectContaining({ field })] });
    }
    expect((await auditFor(owner, 'agent.sign', agent.id)).length).toBe(before);
  });

  test('an agent without an active key: 404', async () => {
    const keyless = await registerAgent(owner, { intents_api_enabled: true });
    isProblem(await sign(await agentJwt(keyless), keyless.id, personal), 404);
  });
});
