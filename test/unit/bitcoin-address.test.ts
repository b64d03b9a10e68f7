// Bitcoin addresses for the family: an agent's P2WPKH address per network (BIP-173 vectors), and
// which destinations a network accepts (the standard output types of that network only).
import * as ecc from 'tiny-secp256k1';
import * as bitcoin from 'bitcoinjs-lib';
import {
  bitcoinNetworkOf, destinationOf, isDestination, p2wpkhAddress, p2wpkhScript,
} from '../../domain/intents/families/bitcoin/bitcoin-network.ts';

// BIP-173: the generator point's compressed key.
const G = Buffer.from('0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798', 'hex');
bitcoin.initEccLib(ecc); // bitcoinjs-lib's own P2TR decoding, the reference here
const mainnet = bitcoinNetworkOf('mainnet');
const testnet = bitcoinNetworkOf('testnet');
const regtest = bitcoinNetworkOf('regtest');

test('network words map to bitcoinjs-lib parameters; anything else is refused', () => {
  expect(mainnet).toBe(bitcoin.networks.bitcoin);
  expect(testnet).toBe(bitcoin.networks.testnet);
  expect(regtest).toBe(bitcoin.networks.regtest);
  for (const bad of ['signet', 'Mainnet', 'bitcoin', '', 'toString', '__proto__']) expect(() => bitcoinNetworkOf(bad)).toThrow(/Unknown Bitcoin network/);
});

test('P2WPKH addresses of a compressed key: BIP-173 vectors on each network', () => {
  expect(p2wpkhAddress(G, mainnet)).toBe('bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4');
  expect(p2wpkhAddress(G, testnet)).toBe('tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx');
  expect(p2wpkhAddress(G, regtest)).toBe('bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080');
  expect(Buffer.from(p2wpkhScript(G)).toString('hex')).toBe('0014751e76e8199196d454941c45d1b3a323f1433bd6');
});

test('only a 33-byte compressed point makes an address', () => {
  const uncompressed = ecc.pointCompress(G, false);
  expect(() => p2wpkhAddress(uncompressed, mainnet)).toThrow(/compressed/);
  expect(() => p2wpkhAddress(G.subarray(1), mainnet)).toThrow(/compressed/);
  expect(() => p2wpkhAddress(Buffer.concat([Buffer.from([0x02]), Buffer.alloc(32, 0xff)]), mainnet)).toThrow(/compressed/);
});

// Standard destinations per network (BIP-173, BIP-350, BIP-86 vectors and well-known addresses).
const MAINNET_OK: Array<[string, string]> = [
  ['1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2', 'p2pkh'],
  ['3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy', 'p2sh'],
  ['bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', 'p2wpkh'],
  ['BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4', 'p2wpkh'], // upper case is valid bech32 (QR codes)
  ['bc1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3qccfmv3', 'p2wsh'],
  ['bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0', 'p2tr'],
];
const TESTNET_OK: Array<[string, string]> = [
  ['mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn', 'p2pkh'],
  ['2MzQwSSnBHWHqSAqtTVQ6v47XtaisrJa1Vc', 'p2sh'],
  ['tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx', 'p2wpkh'],
  ['tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7', 'p2wsh'],
];

test('each network accepts its P2PKH, P2SH, P2WPKH, P2WSH and P2TR destinations, with the right script', () => {
  for (const [a, kind] of MAINNET_OK) {
    const d = destinationOf(a, mainnet);
    expect({ a, kind: d?.kind }).toEqual({ a, kind });
    // The script is the one bitcoinjs-lib (and so the chain) derives for the address.
    const canonical = /^bc1/i.test(a) ? a.toLowerCase() : a;
    expect(Buffer.from(d!.script).toString('hex')).toBe(Buffer.from(bitcoin.address.toOutputScript(canonical, mainnet)).toString('hex'));
  }
  for (const [a, kind] of TESTNET_OK) expect({ a, kind: destinationOf(a, testnet)?.kind }).toEqual({ a, kind });
  // Regtest shares testnet's base58 prefixes; its bech32 prefix is its own.
  expect(destinationOf('mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn', regtest)?.kind).toBe('p2pkh');
  expect(destinationOf('bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080', regtest)?.kind).toBe('p2wpkh');
});

test("another network's address is refused (a mainnet address on regtest is not a destination)", () => {
  for (const [a] of MAINNET_OK) {
    expect({ a, testnet: isDestination(a, testnet), regtest: isDestination(a, regtest) }).toEqual({ a, testnet: false, regtest: false });
  }
  for (const [a] of TESTNET_OK) expect({ a, mainnet: isDestination(a, mainnet) }).toEqual({ a, mainnet: false });
  expect(isDestination('tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx', regtest)).toBe(false);
  expect(isDestination('bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080', testnet)).toBe(false);
});

test('malformed, non-standard and unspendable destinations are refused', () => {
  // A taproot "key" that is not on the curve: nothing could ever spend it.
  let x = 0;
  while (ecc.isXOnlyPoint(Buffer.alloc(32, x))) x++;
  const offCurve = bitcoin.address.toBech32(Buffer.alloc(32, x), 1, 'bc');
  for (const bad of [
    '', ' ', 'bc1', 'hello', '1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN3', // base58 checksum
    'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5', // bech32 checksum
    'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7KV8F3T4', // mixed case
    ' bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4\n',
    'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqh2y7hd', // v1 in bech32, not bech32m (BIP-350)
    'bc1zw508d6qejxtdg4y5r3zarvaryvaxxpcs', // segwit v2: not a standard destination yet
    'BC1SW50QGDZ25J', // v16
    offCurve,
    '0x52908400098527886E0F7030069857D2E4169EE7', // an Ethereum address
  ]) {
    expect({ bad, ok: isDestination(bad, mainnet) }).toEqual({ bad, ok: false });
  }
  expect(isDestination(undefined as unknown as string, mainnet)).toBe(false);
});
