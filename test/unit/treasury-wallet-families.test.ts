// The Bitcoin and Solana treasury wallet families without a node: key facts and addresses checked
// with the chain libraries, the export formats wallets import (WIF, base58 keypair) re-deriving
// the address, destinations per network, and the Intents families' statuses as treasury receipts.
import { ECPairFactory } from 'ecpair';
import * as ecc from 'tiny-secp256k1';
import * as bitcoin from 'bitcoinjs-lib';
import basex from 'base-x';
import { Keypair, PublicKey } from '@solana/web3.js';
import { ChainFamilies } from '../../domain/intents/families/family-registry.ts';
import { BitcoinWalletFamily } from '../../domain/treasury/wallets/bitcoin-family.ts';
import { SolanaWalletFamily } from '../../domain/treasury/wallets/solana-family.ts';
import { receiptOf, refuseEvmFields } from '../../domain/treasury/wallets/family-wallet-networks.ts';
import type { WalletNetwork } from '../../domain/treasury/wallets/chain-families.ts';

const ECPair = ECPairFactory(ecc);
const bs58 = basex('123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz');
const chains = new ChainFamilies({ rpcOverrides: new Map() });
const btcFamily = new BitcoinWalletFamily(chains);
const solFamily = new SolanaWalletFamily(chains);
const net = (name: string, network: string): WalletNetwork => ({ name, chainId: 1, nativeCurrency: '', node: { name, chainId: 1, network, rpcUrl: '', confirmations: 1 } });
const p2wpkh = (pubkey: Uint8Array, network: bitcoin.Network) => bitcoin.payments.p2wpkh({ pubkey: Buffer.from(pubkey), network }).address!;

describe('bitcoin', () => {
  test('a key: uncompressed 0x public key, mainnet P2WPKH record address, the regtest address from the same key', () => {
    const k = btcFamily.generateKey();
    expect(k.publicKey).toMatch(/^0x04[0-9a-f]{128}$/);
    const compressed = ecc.pointCompress(Buffer.from(k.publicKey.slice(2), 'hex'), true);
    expect(k.address).toBe(p2wpkh(compressed, bitcoin.networks.bitcoin));
    expect(btcFamily.addressOn(net('bitcoin-regtest', 'regtest'), { public_key: k.publicKey })).toBe(p2wpkh(compressed, bitcoin.networks.regtest));
    expect(btcFamily.keyFacts(k.privateKey)).toEqual({ publicKey: k.publicKey, address: k.address });
  });

  test('export: WIF (compressed, mainnet) of the same key, and its hex', () => {
    const k = btcFamily.generateKey();
    const e = btcFamily.exportKey(k.privateKey);
    expect(e.format).toBe('wif');
    expect(e.hex).toBe(`0x${Buffer.from(k.privateKey).toString('hex')}`);
    const pair = ECPair.fromWIF(e.importable, bitcoin.networks.bitcoin);
    expect(pair.compressed).toBe(true);
    expect(p2wpkh(pair.publicKey, bitcoin.networks.bitcoin)).toBe(k.address);
  });

  test('destination: an address of the network named, as given; another network\'s or an EVM address is a 400', () => {
    const pub = ECPair.makeRandom().publicKey;
    const regtest = net('bitcoin-regtest', 'regtest');
    expect(btcFamily.destination(regtest, p2wpkh(pub, bitcoin.networks.regtest))).toBe(p2wpkh(pub, bitcoin.networks.regtest));
    expect(() => btcFamily.destination(regtest, p2wpkh(pub, bitcoin.networks.bitcoin))).toThrow(expect.objectContaining({ status: 400 }));
    expect(() => btcFamily.destination(regtest, '0x000000000000000000000000000000000000dEaD')).toThrow(expect.objectContaining({ status: 400 }));
  });
});

describe('solana', () => {
  test('a key: the 32-byte public key, its base58 address; export the base58 64-byte secret key that re-derives it', () => {
    const k = solFamily.generateKey();
    expect(k.publicKey).toMatch(/^0x[0-9a-f]{64}$/);
    expect(k.address).toBe(new PublicKey(Buffer.from(k.publicKey.slice(2), 'hex')).toBase58());
    const e = solFamily.exportKey(k.privateKey);
    expect(e.format).toBe('base58_keypair');
    expect(Keypair.fromSecretKey(bs58.decode(e.importable)).publicKey.toBase58()).toBe(k.address);
    expect(e.hex).toBe(`0x${Buffer.from(k.privateKey).toString('hex')}`);
  });

  test('destination: base58 of 32 bytes; anything else a 400', () => {
    const to = Keypair.generate().publicKey.toBase58();
    expect(solFamily.destination(net('solana-localnet', 'localnet'), to)).toBe(to);
    expect(() => solFamily.destination(net('solana-localnet', 'localnet'), `O${to.slice(1)}`)).toThrow(expect.objectContaining({ status: 400 })); // O is not base58
    expect(() => solFamily.destination(net('solana-localnet', 'localnet'), '0x000000000000000000000000000000000000dEaD')).toThrow(expect.objectContaining({ status: 400 }));
  });
});

describe('shared', () => {
  test('EVM fields on a non-EVM send are 400s naming them; `data` 0x is none', () => {
    expect(() => refuseEvmFields('bitcoin', { to: 'x', value: 1n, data: '0x12' })).toThrow(expect.objectContaining({ status: 400 }));
    expect(() => refuseEvmFields('solana', { to: 'x', value: 1n, gasLimit: 21000n })).toThrow(expect.objectContaining({ status: 400 }));
    expect(() => refuseEvmFields('solana', { to: 'x', value: 1n, data: '0x' })).not.toThrow();
  });

  test('statuses as receipts: pending and unknown are none yet; confirmed, failed and expired settle', () => {
    expect(receiptOf({ state: 'pending' })).toBeNull();
    expect(receiptOf({ state: 'unknown' })).toBeNull();
    expect(receiptOf({ state: 'confirmed', confirmations: 1, block: 7n })).toEqual({ success: true, blockNumber: 7n });
    expect(receiptOf({ state: 'failed', reason: 'input spent', block: null })).toEqual({ success: false, blockNumber: null, reason: 'The transaction failed: input spent' });
    expect(receiptOf({ state: 'expired' })).toMatchObject({ success: false, blockNumber: null });
  });
});
