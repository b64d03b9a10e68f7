// Bitcoin networks and addresses for the Bitcoin family: the family's network word (the chains
// row's `network`) picks bitcoinjs-lib's parameters; an agent's address is P2WPKH (bech32) of its
// compressed secp256k1 key; a destination must be a standard output type of that same network
// (P2PKH, P2SH, P2WPKH, P2WSH, P2TR). Future segwit versions (v2+) decode but are refused: coins
// sent there are anyone-can-spend until a soft fork gives them meaning.
import * as bitcoin from 'bitcoinjs-lib';
import * as ecc from 'tiny-secp256k1';

export type BitcoinNetworkWord = 'mainnet' | 'testnet' | 'regtest';
export type OutputKind = 'p2pkh' | 'p2sh' | 'p2wpkh' | 'p2wsh' | 'p2tr';
export type Destination = { kind: OutputKind; script: Uint8Array };

const NETWORKS: Record<BitcoinNetworkWord, bitcoin.Network> = {
  mainnet: bitcoin.networks.bitcoin,
  testnet: bitcoin.networks.testnet,
  regtest: bitcoin.networks.regtest,
};

export function isBitcoinNetworkWord(word: string): word is BitcoinNetworkWord {
  return Object.hasOwn(NETWORKS, word);
}

/** bitcoinjs-lib's parameters for a family network word; anything else is a misconfigured chains row. */
export function bitcoinNetworkOf(word: string): bitcoin.Network {
  if (!isBitcoinNetworkWord(word)) throw new Error(`Unknown Bitcoin network "${word}" (expected mainnet, testnet or regtest)`);
  return NETWORKS[word];
}

/** The P2WPKH output script of a 33-byte compressed public key. */
export function p2wpkhScript(publicKey: Uint8Array): Uint8Array {
  return p2wpkhPayment(publicKey, bitcoin.networks.bitcoin).output!;
}

/** The bech32 P2WPKH address of a 33-byte compressed secp256k1 public key on `network`. */
export function p2wpkhAddress(publicKey: Uint8Array, network: bitcoin.Network): string {
  return p2wpkhPayment(publicKey, network).address!;
}

/** Payments by network and key: every transfer derives its sender's script and address, and the point check costs. */
const payments = new Map<string, bitcoin.Payment>();
const PAYMENTS_MAX = 10_000;

function p2wpkhPayment(publicKey: Uint8Array, network: bitcoin.Network): bitcoin.Payment {
  const key = `${network.bech32}:${Buffer.from(publicKey).toString('hex')}`;
  const kept = payments.get(key);
  if (kept) return kept;
  if (publicKey.length !== 33 || !ecc.isPointCompressed(publicKey)) {
    throw new Error('A Bitcoin P2WPKH address needs a 33-byte compressed secp256k1 public key');
  }
  const payment = bitcoin.payments.p2wpkh({ pubkey: publicKey, network });
  if (payments.size >= PAYMENTS_MAX) payments.delete(payments.keys().next().value!);
  payments.set(key, payment);
  return payment;
}

/**
 * Destinations by network and address: every transfer checks its recipient twice (the request's
 * address check, then the build), and bitcoinjs-lib's decoders answer a non-match by throwing
 * (base58 tried first on every bech32 address). Kept like the payments above; callers never
 * mutate the script.
 */
const destinations = new Map<string, Destination | null>();
const DESTINATIONS_MAX = 10_000;

/** The output `address` stands for on `network`, or null when it is not a standard destination there. */
export function destinationOf(address: string, network: bitcoin.Network): Destination | null {
  if (typeof address !== 'string' || address.length < 14 || address.length > 90) return null;
  const key = `${network.bech32}:${network.pubKeyHash}:${address}`;
  const kept = destinations.get(key);
  if (kept !== undefined) return kept;
  const found = decodeDestination(address, network);
  if (destinations.size >= DESTINATIONS_MAX) destinations.delete(destinations.keys().next().value!);
  destinations.set(key, found);
  return found;
}

function decodeDestination(address: string, network: bitcoin.Network): Destination | null {
  const base58 = attempt(() => bitcoin.address.fromBase58Check(address));
  if (base58) {
    if (base58.version === network.pubKeyHash) return { kind: 'p2pkh', script: bitcoin.payments.p2pkh({ hash: base58.hash }).output! };
    if (base58.version === network.scriptHash) return { kind: 'p2sh', script: bitcoin.payments.p2sh({ hash: base58.hash }).output! };
    return null;
  }
  const bech = attempt(() => bitcoin.address.fromBech32(address));
  if (!bech || bech.prefix !== network.bech32) return null;
  if (bech.version === 0 && bech.data.length === 20) return { kind: 'p2wpkh', script: bitcoin.payments.p2wpkh({ hash: bech.data }).output! };
  if (bech.version === 0 && bech.data.length === 32) return { kind: 'p2wsh', script: bitcoin.payments.p2wsh({ hash: bech.data }).output! };
  // A taproot output key must be a point on the curve, or nothing can ever spend the coins.
  if (bech.version === 1 && bech.data.length === 32 && ecc.isXOnlyPoint(bech.data)) {
    return { kind: 'p2tr', script: Uint8Array.from([0x51, 0x20, ...bech.data]) };
  }
  return null;
}

export function isDestination(address: string, network: bitcoin.Network): boolean {
  return destinationOf(address, network) !== null;
}

function attempt<T>(f: () => T): T | null {
  try {
    return f();
  } catch {
    return null;
  }
}
