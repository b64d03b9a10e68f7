// Which signing key a chain name asks for (spec §4.7; reference: "EVM network names map to the
// `ethereum` key"). One secp256k1 key serves every EVM chain: an EVM address is the same on all of
// them, so `ethereum`, `base`, `8453` or `0x2105` all name the agent's one `ethereum` key. Bitcoin
// and Solana have one key each too, for all their networks (`bitcoin`, `btc`, `bitcoin-regtest` →
// the `bitcoin` key; its address differs per network, see key-families.ts); XRP likewise (`xrp`,
// `xrpl`, `ripple`, `xrp-testnet` → the `xrp` key, one address on every network), Cardano (`ada`,
// `cardano-preprod` → the `cardano` key, its address per network) and Tron (`tron`, `trx`,
// `tron-nile` → the `tron` key, one address everywhere). A name that is none of these (nor an
// enabled EVM chain of the chains table) is a 400.
import type { EntityManager } from '@mikro-orm/postgresql';
import { invalidField } from '../../errors.ts';
import { parseChainIdentifier } from '../../chains/chain-fields.ts';
import { findChain } from '../../chains/chain-repository.ts';
import { keyFamilyOf } from '../families/family-chains.ts';

/** The key families a signing key can belong to today. */
export type SigningChain = 'ethereum' | 'bitcoin' | 'solana' | 'xrp' | 'cardano' | 'tron';

/** What a chain in a request is: a key family, or (ok: false) refused with its message. */
export type ChainVerdict = { ok: true; chain: SigningChain } | { ok: false; message: string };

/** The pure part: names and ids that need no lookup. Null: ask the chains table. */
export function classifyChain(raw: string | number): ChainVerdict | null {
  const s = String(raw).trim().toLowerCase();
  if (s === 'ethereum') return { ok: true, chain: 'ethereum' };
  const family = keyFamilyOf(raw);
  if (family) return { ok: true, chain: family };
  return null;
}

/**
 * The signing chain `raw` names (a key family, a network's name or chain_id, decimal or 0x-hex),
 * or a 400 naming `field`. Only enabled chains count: a disabled chain is, to users, no chain.
 */
export async function resolveSigningChain(em: EntityManager, raw: string | number, field = 'chain'): Promise<SigningChain> {
  const known = classifyChain(raw);
  if (known?.ok) return known.chain;
  if (known) throw invalidField(field, known.message);
  const key = parseChainIdentifier(String(raw));
  const row = key ? await findChain(em, key) : null;
  if (row?.is_enabled && row.family === 'ethereum') return 'ethereum';
  throw invalidField(field, 'must be ethereum, bitcoin, solana, xrp, cardano, tron or an EVM chain this service knows (by name or chain_id, see GET /v1/chains)');
}
