// What the Safe treasury test files share: one local EVM node with its chain, an owner on a plan
// with treasuries, a member, an Intents agent funded for gas, the Safe 1.5.0 contracts deployed,
// and two keys the test holds (the owner's and the member's signer addresses). Each file makes
// its own world with its own platform operator (test/helpers/global-setup.ts lists them), so
// files never race for one account.
import { parseEther, type Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { call, db, joinAsMember, signup, type Account } from './api.ts';
import { intentsAgent, startTestChain, type IntentsAgent, type TestChain } from './intents-chain.ts';
import { createSafe, deploySafeContracts, type SafeDeployment } from './safe-contracts.ts';

export const T = (id: string, rest = '') => `/v1/treasury/${id}${rest}`;

export class SafeWorld {
  chain!: TestChain;
  owner!: Account;
  member!: Account;
  agent!: IntentsAgent;
  dep!: SafeDeployment;
  /** The owner's signer key (signs EIP-712 locally and posts the signature). */
  readonly userKey = privateKeyToAccount(generatePrivateKey());
  /** The member's signer key. */
  readonly thirdKey = privateKeyToAccount(generatePrivateKey());

  async start(operatorEmail: string, tag: string): Promise<void> {
    this.chain = await startTestChain(operatorEmail);
    this.owner = await signup(`${tag}-owner`);
    await db().query("UPDATE organizations SET billing_tier = 'team' WHERE id = $1", [this.owner.orgId]);
    this.member = await joinAsMember(this.owner, `${tag}-third`);
    this.agent = await intentsAgent(this.owner, this.chain, parseEther('10'));
    this.dep = await deploySafeContracts(this.chain.node);
  }

  async stop(): Promise<void> {
    await this.chain?.node.stop();
  }

  /** A funded Safe owned by the owner's key, the agent and the member's key. */
  async newSafe(threshold = 2): Promise<Address> {
    const safe = await createSafe(this.chain.node, this.dep, [this.userKey.address, this.agent.address, this.thirdKey.address], threshold);
    await this.chain.node.fund(safe, parseEther('5'));
    return safe;
  }

  /** The treasury of that Safe, its signers the owner, the agent and the member. */
  async newTreasury(safe: Address, threshold = 2): Promise<any> {
    const r = await call('POST', '/v1/treasury', {
      token: this.owner.token,
      body: {
        name: 'Ops treasury', safe_address: safe, chain: this.chain.name, threshold,
        signers: [
          { signer_type: 'user', signer_id: this.owner.userId, signer_address: this.userKey.address },
          { signer_type: 'agent', signer_id: this.agent.id, signer_address: this.agent.address },
          { signer_type: 'user', signer_id: this.member.userId, signer_address: this.thirdKey.address },
        ],
      },
    });
    expect(r.status).toBe(201);
    return r.body;
  }

  /** The agent asks for access and the owner approves it. */
  async approvedAccess(treasuryId: string, a: IntentsAgent = this.agent): Promise<void> {
    const req = await call('POST', T(treasuryId, '/access-requests'), { token: a.token, body: { reason: 'pay invoices' } });
    expect(req.status).toBe(201);
    const ok = await call('POST', T(treasuryId, `/access-requests/${req.body.id}/approve`), { token: this.owner.token });
    expect(ok.status).toBe(200);
  }

  proposalOf(treasuryId: string, id: string, token = this.owner.token) {
    return call('GET', T(treasuryId, `/proposals/${id}`), { token });
  }
}
