// Which non-EVM chain family a chain in a request names, without a database read (the signing hot
// path classifies every request). The Bitcoin and Solana networks are fixed rows seeded by
// migration 0038, Cardano's by 0040 (operators add only EVM chains), so their names, the clients' short spellings
// (btc, sol, ada) and their synthetic chain ids are known here. An operator points a network at its
// node with CHAIN_RPC_URLS or PUT /v1/admin/chains/{name}.
import type { FamilyName } from './chain-family.ts';

/** The non-EVM families the Intents API signs for. */
export type SignedFamily = Extract<FamilyName, 'bitcoin' | 'solana' | 'xrp' | 'cardano' | 'tron'>;

/** A seeded network: its chains row name, synthetic chain id and family. */
type SeededNetwork = { name: string; chainId: number; family: SignedFamily };

const SEEDED: SeededNetwork[] = [
  { name: 'bitcoin', chainId: 9000000000001, family: 'bitcoin' },
  { name: 'bitcoin-testnet', chainId: 9000000000002, family: 'bitcoin' },
  { name: 'bitcoin-regtest', chainId: 9000000000003, family: 'bitcoin' },
  { name: 'solana', chainId: 9000000000101, family: 'solana' },
  { name: 'solana-devnet', chainId: 9000000000102, family: 'solana' },
  { name: 'solana-testnet', chainId: 9000000000103, family: 'solana' },
  { name: 'solana-localnet', chainId: 9000000000104, family: 'solana' },
  { name: 'xrp', chainId: 9000000000201, family: 'xrp' }, // migration 0039
  { name: 'xrp-testnet', chainId: 9000000000202, family: 'xrp' },
  { name: 'xrp-devnet', chainId: 9000000000203, family: 'xrp' },
  // Cardano: migration 0040.
  { name: 'cardano', chainId: 9000000000301, family: 'cardano' },
  { name: 'cardano-preprod', chainId: 9000000000302, family: 'cardano' },
  { name: 'cardano-preview', chainId: 9000000000303, family: 'cardano' },
  // Tron: migration 0041.
  { name: 'tron', chainId: 9000000000401, family: 'tron' },
  { name: 'tron-nile', chainId: 9000000000402, family: 'tron' },
  { name: 'tron-shasta', chainId: 9000000000403, family: 'tron' },
];

/** Short spellings clients send for a family's main network. */
const ALIASES: Record<string, string> = { btc: 'bitcoin', sol: 'solana', 'solana-mainnet': 'solana', 'bitcoin-mainnet': 'bitcoin',
  xrpl: 'xrp', ripple: 'xrp', 'xrp-mainnet': 'xrp', ada: 'cardano', 'cardano-mainnet': 'cardano', trx: 'tron', 'tron-mainnet': 'tron' };

const byName = new Map(SEEDED.map((n) => [n.name, n]));
const byId = new Map(SEEDED.map((n) => [n.chainId, n]));

/** The seeded non-EVM network `raw` names (name, alias or synthetic chain id), or null: EVM or unknown. */
export function familyNetworkOf(raw: string | number): { name: string; chainId: number; family: SignedFamily } | null {
  if (typeof raw === 'number') return byId.get(raw) ?? null;
  const s = raw.trim().toLowerCase();
  if (/^[0-9]+$/.test(s)) return byId.get(Number(s)) ?? null;
  return byName.get(ALIASES[s] ?? s) ?? null;
}

/** The family a key request's chain names (`bitcoin`, `btc`, `bitcoin-regtest` … → bitcoin), or null. */
export const keyFamilyOf = (raw: string | number): SignedFamily | null => familyNetworkOf(raw)?.family ?? null;

/** The seeded networks of a family (the addresses a key has on each). */
export const networksOf = (family: SignedFamily): string[] => SEEDED.filter((n) => n.family === family).map((n) => n.name);
