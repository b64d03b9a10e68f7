// The state earlier transactions of a bundle left, carried to the later ones as eth_call state
// overrides when the node has no eth_simulateV1. Reads fall through to the chain for accounts no
// earlier transaction touched.
import type { Address, Hex } from 'viem';
import type { ChainRpc } from '../../../chains/chain-rpc.ts';
import { toQuantity } from '../../../chains/rpc-hex.ts';
import { codeAt, type AccountState, type StateOverride } from './node-calls.ts';

export class CarriedState {
  private readonly accounts = new Map<string, AccountState>();
  private readonly rpc: ChainRpc;
  private readonly chainId: number;

  constructor(rpc: ChainRpc, chainId: number) {
    this.rpc = rpc;
    this.chainId = chainId;
  }

  get empty(): boolean {
    return this.accounts.size === 0;
  }

  async balance(address: Address): Promise<bigint> {
    return this.accounts.get(address.toLowerCase())?.balance ?? this.rpc.balance(this.chainId, address);
  }

  /** Whether the address runs code (a contract, or an EIP-7702 delegated account). */
  async hasCode(address: Address): Promise<boolean> {
    const code = this.accounts.get(address.toLowerCase())?.code ?? await codeAt(this.rpc, this.chainId, address);
    return code !== '0x';
  }

  setBalance(address: Address, balance: bigint): void {
    this.merge(address.toLowerCase(), { balance });
  }

  /** Takes over a prestate diff's post-state (what the transaction changed). */
  apply(post: Map<string, AccountState>): void {
    for (const [addr, s] of post) this.merge(addr, s);
  }

  /** The overrides for the next call; undefined while nothing is carried. */
  toRpc(): StateOverride | undefined {
    if (this.accounts.size === 0) return undefined;
    const out: StateOverride = {};
    for (const [addr, s] of this.accounts) {
      const o: StateOverride[string] = {};
      if (s.balance !== undefined) o.balance = toQuantity(s.balance);
      if (s.nonce !== undefined) o.nonce = toQuantity(s.nonce);
      if (s.code !== undefined) o.code = s.code;
      // stateDiff, not state: slots nobody wrote keep their on-chain values.
      if (s.storage && Object.keys(s.storage).length > 0) o.stateDiff = { ...s.storage } as Record<string, Hex>;
      out[addr] = o;
    }
    return out;
  }

  private merge(addr: string, s: AccountState): void {
    const cur = this.accounts.get(addr) ?? {};
    this.accounts.set(addr, {
      balance: s.balance ?? cur.balance, nonce: s.nonce ?? cur.nonce, code: s.code ?? cur.code,
      storage: s.storage || cur.storage ? { ...cur.storage, ...s.storage } : undefined,
    });
  }
}
