// Cardano networks and addresses for the Cardano family. The chains row's `network` word picks
// the network id the address header carries (mainnet 1; preprod and preview 0, which share the
// `addr_test` prefix). An agent's address is the ENTERPRISE address of its Ed25519 key: the
// payment credential is the key's blake2b-224 hash, and there is no stake part (its ADA is not
// delegated). A destination is any Shelley payment address of the same network id (base,
// enterprise, pointer; key or script credential). Reward (stake…) addresses hold no UTxOs and
// Byron (base58) addresses are refused here.
import * as C from '@emurgo/cardano-serialization-lib-nodejs';

export type CardanoNetworkWord = 'mainnet' | 'preprod' | 'preview';

const NETWORK_IDS: Record<CardanoNetworkWord, number> = { mainnet: 1, preprod: 0, preview: 0 };

export function isCardanoNetworkWord(word: string): word is CardanoNetworkWord {
  return Object.hasOwn(NETWORK_IDS, word);
}

/** The address header's network id of a family network word; anything else is a misconfigured chains row. */
export function networkIdOf(word: string): number {
  if (!isCardanoNetworkWord(word)) throw new Error(`Unknown Cardano network "${word}" (expected mainnet, preprod or preview)`);
  return NETWORK_IDS[word];
}

/** The bech32 prefix of payment addresses on a network id. */
export const addressPrefixOf = (networkId: number) => (networkId === 1 ? 'addr' : 'addr_test');

/** The blake2b-224 hash of a 32-byte Ed25519 public key: the payment credential. */
export function keyHashOf(publicKey: Uint8Array): C.Ed25519KeyHash {
  if (publicKey.length !== 32) throw new Error('A Cardano payment key is a 32-byte Ed25519 public key');
  return C.PublicKey.from_bytes(publicKey).hash();
}

/** The enterprise address (addr1… / addr_test1…) of a 32-byte Ed25519 public key on `word`'s network. */
export function enterpriseAddress(publicKey: Uint8Array, word: string): string {
  return C.EnterpriseAddress.new(networkIdOf(word), C.Credential.from_keyhash(keyHashOf(publicKey))).to_address().to_bech32(undefined);
}

/** The parsed destination `address` names on `word`'s network, or null when it is not a Shelley payment address there. */
export function destinationOf(address: string, word: string): C.Address | null {
  if (typeof address !== 'string' || address.length < 20 || address.length > 200) return null;
  const networkId = networkIdOf(word);
  if (!address.startsWith(`${addressPrefixOf(networkId)}1`)) return null;
  let parsed: C.Address;
  try {
    parsed = C.Address.from_bech32(address);
  } catch {
    return null;
  }
  if (parsed.network_id() !== networkId) return null;
  const payment = C.BaseAddress.from_address(parsed) ?? C.EnterpriseAddress.from_address(parsed) ?? C.PointerAddress.from_address(parsed);
  return payment ? parsed : null;
}
