// The raw baselines of the Bitcoin and Solana signing benchmark (test/bench/family-signing.ts):
// the same transfer the service signs, built and signed with the chain library in the bench
// process, one after another, with the key in memory and no node asked anything.
//   Bitcoin: a bitcoinjs-lib PSBT spending one P2WPKH coin to a P2WPKH payee with change back,
//            version 2, RBF, signed with an ecpair key over tiny-secp256k1, finalized, extracted
//            to hex with its txid (what the service answers).
//   Solana:  a @solana/web3.js legacy Transaction (SystemProgram.transfer with a reference key,
//            as the service builds it), signed by an Ed25519 Keypair and serialized (web3.js
//            verifies the signature when it serializes).
//   Tron:    a TransferContract in tronweb's protobuf (txJsonToPb on a fixed reference block), its
//            raw_data_hex and txID, signed by tronweb's signTransaction (65 bytes r‖s‖v).
//   XRP:     an xrpl Payment (Sequence, Fee, LastLedgerSequence, as the service builds it) signed
//            by xrpl's Wallet.sign with a secp256k1 key: the blob and its hash.
import { randomBytes } from 'node:crypto';
import * as bitcoin from 'bitcoinjs-lib';
import * as ecc from 'tiny-secp256k1';
import { ECPairFactory } from 'ecpair';
import { Keypair, PublicKey, SystemProgram, Transaction } from '@solana/web3.js';
import { utils as tron } from 'tronweb';
import { ECDSA, Wallet } from 'xrpl';

const WARM_UP = 200;

/** Runs `once` for `seconds` (after a warm-up): completed runs per second. */
async function perSecond(seconds: number, once: (i: number) => unknown): Promise<number> {
  for (let i = 0; i < WARM_UP; i++) await once(i);
  const t0 = performance.now();
  let n = 0;
  while (performance.now() - t0 < seconds * 1000) await once(n++);
  return n / ((performance.now() - t0) / 1000);
}

export async function rawBitcoinSignsPerSecond(seconds: number): Promise<number> {
  const network = bitcoin.networks.regtest;
  const ECPair = ECPairFactory(ecc);
  const key = ECPair.makeRandom({ network });
  const sender = bitcoin.payments.p2wpkh({ pubkey: key.publicKey, network });
  const payee = bitcoin.payments.p2wpkh({ pubkey: ECPair.makeRandom({ network }).publicKey, network });
  const coinTxid = randomBytes(32).toString('hex');
  return perSecond(seconds, (i) => {
    const psbt = new bitcoin.Psbt({ network });
    psbt.setVersion(2);
    psbt.addInput({ hash: coinTxid, index: i % 4, sequence: 0xfffffffd, witnessUtxo: { script: sender.output!, value: 100_000_000n } });
    psbt.addOutput({ script: payee.output!, value: 1_000_000n });
    psbt.addOutput({ script: sender.output!, value: 100_000_000n - 1_000_000n - 141n });
    psbt.signInput(0, key);
    psbt.finalizeAllInputs();
    const tx = psbt.extractTransaction();
    return [tx.toHex(), tx.getId()];
  });
}

export async function rawSolanaSignsPerSecond(seconds: number): Promise<number> {
  const payer = Keypair.generate();
  const to = Keypair.generate().publicKey;
  const blockhash = new PublicKey(randomBytes(32)).toBase58();
  return perSecond(seconds, () => {
    const transfer = SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: to, lamports: 1_000_000 });
    transfer.keys.push({ pubkey: new PublicKey(randomBytes(32)), isSigner: false, isWritable: false });
    const tx = new Transaction({ feePayer: payer.publicKey, blockhash, lastValidBlockHeight: 1000 }).add(transfer);
    tx.sign(payer);
    return tx.serialize().toString('base64');
  });
}

export async function rawTronSignsPerSecond(seconds: number): Promise<number> {
  const key = randomBytes(32).toString('hex');
  const owner = tron.address.toHex(tron.address.fromPrivateKey(key) as string);
  const to = tron.address.toHex(tron.address.fromPrivateKey(randomBytes(32).toString('hex')) as string);
  const ref = { ref_block_bytes: 'abcd', ref_block_hash: randomBytes(8).toString('hex') };
  return perSecond(seconds, (i) => {
    const raw_data = {
      contract: [{ parameter: { value: { owner_address: owner, to_address: to, amount: 1_000 + i }, type_url: 'type.googleapis.com/protocol.TransferContract' }, type: 'TransferContract' }],
      ...ref, expiration: Date.now() + 600_000, timestamp: Date.now(),
    };
    const pb = tron.transaction.txJsonToPb({ raw_data, visible: false });
    const tx = { visible: false, txID: tron.transaction.txPbToTxID(pb).slice(2), raw_data, raw_data_hex: tron.transaction.txPbToRawDataHex(pb) };
    return JSON.stringify(tron.crypto.signTransaction(key, tx));
  });
}

export async function rawXrpSignsPerSecond(seconds: number): Promise<number> {
  const wallet = Wallet.generate(ECDSA.secp256k1);
  const to = Wallet.generate(ECDSA.secp256k1).classicAddress;
  return perSecond(seconds, (i) => {
    const signed = wallet.sign({
      TransactionType: 'Payment', Account: wallet.classicAddress, Destination: to, Amount: '1000', Flags: 0,
      Sequence: 1 + (i % 1000), Fee: '10', LastLedgerSequence: 5000,
    });
    return [signed.tx_blob, signed.hash];
  });
}
