// Strict readers for what an EVM node answers: a quantity is 0x plus 1 to 64 hex digits (256
// bits at most), data is 0x plus whole bytes. Anything else is a malformed answer, which callers
// report as the chain being unavailable (a node that garbles answers is not a verdict on a
// transaction). Writers produce the canonical forms the JSON-RPC spec asks for.
import type { Hex } from 'viem';

export class MalformedAnswer extends Error {
  constructor(what: string) {
    super(`malformed answer: ${what}`);
    this.name = 'MalformedAnswer';
  }
}

const QUANTITY = /^0x[0-9a-fA-F]{1,64}$/;
const DATA = /^0x(?:[0-9a-fA-F]{2})*$/;
const HASH = /^0x[0-9a-fA-F]{64}$/;

export function readQuantity(v: unknown, what: string): bigint {
  if (typeof v !== 'string' || !QUANTITY.test(v)) throw new MalformedAnswer(`${what} is not a hex quantity`);
  return BigInt(v);
}

/** A quantity that must fit a JS number (nonces, block numbers of the near future). */
export function readSafeInteger(v: unknown, what: string): number {
  const n = readQuantity(v, what);
  if (n > BigInt(Number.MAX_SAFE_INTEGER)) throw new MalformedAnswer(`${what} is out of range`);
  return Number(n);
}

export function readData(v: unknown, what: string): Hex {
  if (typeof v !== 'string' || !DATA.test(v)) throw new MalformedAnswer(`${what} is not hex data`);
  return v as Hex;
}

export function readHash(v: unknown, what: string): Hex {
  if (typeof v !== 'string' || !HASH.test(v)) throw new MalformedAnswer(`${what} is not a 32-byte hash`);
  return v.toLowerCase() as Hex;
}

export const isHexData = (v: unknown): v is Hex => typeof v === 'string' && DATA.test(v);

/** Canonical JSON-RPC quantity: no leading zeros, 0 as 0x0. */
export const toQuantity = (n: bigint | number): Hex => `0x${n.toString(16)}`;
