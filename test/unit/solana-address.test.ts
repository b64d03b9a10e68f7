// Solana addresses (domain/intents/families/solana/solana-address.ts, base58.ts): base58 of a
// 32-byte Ed25519 key, checked against web3.js's own encoding; a destination is any 32-byte key
// (on the curve or not: token accounts and program addresses are off it), nothing else.
import { Keypair, PublicKey } from '@solana/web3.js';
import { getAssociatedTokenAddressSync } from '@solana/spl-token';
import { base58Decode, base58Encode } from '../../domain/intents/families/solana/base58.ts';
import { isSolanaAddress, solanaAddressBytes, solanaAddressOf } from '../../domain/intents/families/solana/solana-address.ts';
import { SolanaFamily } from '../../domain/intents/families/solana/solana-family.ts';
import { Problem } from '../../domain/errors.ts';

const NET = { name: 'solana-localnet', chainId: 900, network: 'localnet', rpcUrl: 'http://127.0.0.1:1', confirmations: 1 };

describe('Solana addresses', () => {
  it('the address of a public key is web3.js\'s base58 of it', () => {
    for (let i = 0; i < 50; i++) {
      const kp = Keypair.generate();
      expect(solanaAddressOf(kp.publicKey.toBytes())).toBe(kp.publicKey.toBase58());
      expect(new SolanaFamily().addressOf(kp.publicKey.toBytes(), NET)).toBe(kp.publicKey.toBase58());
    }
    // Leading zero bytes are leading '1's: the System program is 32 zero bytes.
    expect(solanaAddressOf(new Uint8Array(32))).toBe('11111111111111111111111111111111');
    expect(() => solanaAddressOf(new Uint8Array(33))).toThrow(/32 bytes/);
  });

  it('base58 round-trips any bytes, leading zeros included', () => {
    for (const bytes of [new Uint8Array([0, 0, 1, 2]), new Uint8Array(64).fill(255), Keypair.generate().secretKey]) {
      expect(base58Decode(base58Encode(bytes))).toEqual(bytes);
    }
    expect(base58Decode('0OIl')).toBeNull(); // outside the alphabet
    expect(base58Decode('')).toBeNull();
  });

  it('accepts any 32-byte key as a destination, on the curve or off it', () => {
    const wallet = Keypair.generate().publicKey;
    const tokenAccount = getAssociatedTokenAddressSync(Keypair.generate().publicKey, wallet); // a PDA: off the curve
    expect(PublicKey.isOnCurve(tokenAccount.toBytes())).toBe(false);
    expect(isSolanaAddress(wallet.toBase58())).toBe(true);
    expect(isSolanaAddress(tokenAccount.toBase58())).toBe(true);
    expect(new SolanaFamily().isAddress(tokenAccount.toBase58(), NET)).toBe(true);
    expect(isSolanaAddress('11111111111111111111111111111111')).toBe(true);
  });

  it('refuses what is not base58 of exactly 32 bytes', () => {
    const good = Keypair.generate().publicKey.toBase58();
    const max = base58Encode(new Uint8Array(32).fill(255)); // one more digit is 33 bytes, two fewer 31
    for (const bad of [
      '', 'abc', `${max}1`, max.slice(0, -2), good.replace(/.$/, '0'), ` ${good}`, `${good} `, '0x' + 'ab'.repeat(32),
      base58Encode(new Uint8Array(31).fill(7)), base58Encode(new Uint8Array(33).fill(7)), base58Encode(new Uint8Array(64).fill(9)),
      '1'.repeat(45), null, 42, undefined,
    ]) {
      expect(isSolanaAddress(bad)).toBe(false);
    }
    expect(() => solanaAddressBytes('nope', 'to')).toThrow(Problem);
    try { solanaAddressBytes('nope', 'to'); } catch (e) {
      expect((e as Problem).status).toBe(400);
      expect((e as Problem).extras).toEqual({ errors: [{ field: 'to', message: expect.stringContaining('Solana address') }] });
    }
    expect(solanaAddressBytes(good)).toEqual(new PublicKey(good).toBytes());
  });
});
