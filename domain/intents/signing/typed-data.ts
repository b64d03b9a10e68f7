// EIP-712 typed data as POST /v1/agents/{agent_id}/sign receives it (intent `typed_data`): the JSON
// of eth_signTypedData_v4 ({types, primaryType, domain, message}). Checked field by field against
// its own types before viem hashes it, so a 400 names the field that is wrong
// (`typed_data.message.owner`), and normalized on the way: integers may arrive as JSON numbers or
// as decimal or 0x-hex text (wallets send large ones as text) and are hashed as what they say.
// Pure: no database, no key.
import { getTypesForEIP712Domain, hashTypedData, isAddress, type Hex, type TypedDataDomain } from 'viem';
import { invalidField } from '../../errors.ts';
import type { TypedDomain } from './eip712-domains.ts';

type Field = { name: string; type: string };
type Types = Record<string, Field[]>;

const STRUCT_NAME = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const INTEGER = /^(u?)int(\d*)$/;
const FIXED_BYTES = /^bytes(\d+)$/;
const ARRAY = /^(.+)\[(\d*)\]$/;
const HEX_BYTES = /^0x([0-9a-fA-F]{2})*$/;

class Invalid extends Error {
  readonly field: string;
  constructor(field: string, message: string) {
    super(message);
    this.field = field;
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The EIP-712 hash (`0x1901 ‖ domainSeparator ‖ hashStruct(message)`), or a 400 naming the field. */
export const typedDataHash = (raw: unknown): Hex => typedData(raw).hash;

/** The EIP-712 hash and the domain it is bound to (normalized for eip712-domains.ts), or a 400 naming the field. */
export function typedData(raw: unknown): { hash: Hex; domain: TypedDomain } {
  if (raw === undefined || raw === null) throw invalidField('typed_data', 'is required for intent_type typed_data: the EIP-712 JSON {types, primaryType, domain, message}');
  try {
    const { types, primaryType, domain, message } = normalize(raw);
    try {
      return { hash: hashTypedData({ types, primaryType, domain, message } as Parameters<typeof hashTypedData>[0]), domain: domainFacts(domain) };
    } catch (e) {
      throw new Invalid('typed_data', (e as { shortMessage?: string }).shortMessage ?? 'is not valid EIP-712 typed data');
    }
  } catch (e) {
    if (e instanceof Invalid) throw invalidField(e.field, e.message);
    throw e;
  }
}

function domainFacts(d: Record<string, unknown> | undefined): TypedDomain {
  const facts: TypedDomain = {};
  if (!d) return facts;
  if (d.name !== undefined) facts.name = String(d.name);
  if (d.version !== undefined) facts.version = String(d.version);
  if (d.chainId !== undefined) facts.chainId = BigInt(d.chainId as bigint | number | string);
  if (d.verifyingContract !== undefined) facts.verifyingContract = String(d.verifyingContract).toLowerCase();
  if (d.salt !== undefined) facts.salt = String(d.salt).toLowerCase();
  return facts;
}

function normalize(raw: unknown): { types: Types; primaryType: string; domain: Record<string, unknown> | undefined; message: unknown } {
  if (!isObject(raw)) throw new Invalid('typed_data', 'must be an object {types, primaryType, domain, message}');
  const types = typesOf(raw.types);
  const primaryType = raw.primaryType;
  if (typeof primaryType !== 'string' || primaryType === '') throw new Invalid('typed_data.primaryType', 'is required: the name of the message\'s type');
  if (primaryType !== 'EIP712Domain' && !Object.hasOwn(types, primaryType)) {
    throw new Invalid('typed_data.primaryType', `must be one of the types in typed_data.types (${Object.keys(types).filter((t) => t !== 'EIP712Domain').join(', ') || 'none'})`);
  }
  let domain: Record<string, unknown> | undefined;
  if (raw.domain !== undefined && raw.domain !== null) {
    if (!isObject(raw.domain)) throw new Invalid('typed_data.domain', 'must be an object (name, version, chainId, verifyingContract, salt)');
    const domainTypes = Object.hasOwn(types, 'EIP712Domain') ? types.EIP712Domain! : getTypesForEIP712Domain({ domain: raw.domain as TypedDataDomain });
    domain = struct(types, domainTypes, raw.domain, 'typed_data.domain');
  }
  let message: unknown;
  if (primaryType !== 'EIP712Domain') {
    if (!isObject(raw.message)) throw new Invalid('typed_data.message', `must be an object of type ${primaryType}`);
    message = struct(types, types[primaryType]!, raw.message, 'typed_data.message');
  }
  return { types, primaryType, domain, message };
}

function typesOf(raw: unknown): Types {
  if (!isObject(raw)) throw new Invalid('typed_data.types', 'must be an object mapping each type name to its fields [{name, type}]');
  const types: Types = {};
  for (const [name, fields] of Object.entries(raw)) {
    const at = `typed_data.types.${name}`;
    if (!STRUCT_NAME.test(name)) throw new Invalid('typed_data.types', `"${name.slice(0, 64)}" is not a valid type name`);
    if (!Array.isArray(fields)) throw new Invalid(at, 'must be an array of fields [{name, type}]');
    const seen = new Set<string>();
    types[name] = fields.map((f, i) => {
      if (!isObject(f) || typeof f.name !== 'string' || typeof f.type !== 'string' || f.name === '' || f.type === '') {
        throw new Invalid(`${at}.${i}`, 'must be a field {name, type} with two non-empty strings');
      }
      if (seen.has(f.name)) throw new Invalid(`${at}.${i}`, `repeats the field name "${f.name.slice(0, 64)}"`);
      seen.add(f.name);
      return { name: f.name, type: f.type };
    });
  }
  return types;
}

function struct(types: Types, fields: Field[], value: Record<string, unknown>, at: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { name, type } of fields) {
    const v = Object.hasOwn(value, name) ? value[name] : undefined;
    out[name] = member(types, type, v, `${at}.${name}`);
  }
  return out;
}

function member(types: Types, type: string, v: unknown, at: string): unknown {
  if (v === undefined || v === null) throw new Invalid(at, `is required (type ${type})`);
  const array = ARRAY.exec(type);
  if (array) {
    if (!Array.isArray(v)) throw new Invalid(at, `must be an array (type ${type})`);
    if (array[2] !== '' && v.length !== Number(array[2])) throw new Invalid(at, `must have exactly ${array[2]} elements (type ${type})`);
    return v.map((e, i) => member(types, array[1]!, e, `${at}.${i}`));
  }
  if (Object.hasOwn(types, type)) {
    if (!isObject(v)) throw new Invalid(at, `must be an object of type ${type}`);
    return struct(types, types[type]!, v, at);
  }
  if (type === 'address') {
    if (typeof v !== 'string' || !isAddress(v)) throw new Invalid(at, 'must be a 20-byte 0x-hex address (with a valid EIP-55 checksum when mixed-case)');
    return v;
  }
  if (type === 'bool') {
    if (typeof v !== 'boolean') throw new Invalid(at, 'must be true or false');
    return v;
  }
  if (type === 'string') {
    if (typeof v !== 'string') throw new Invalid(at, 'must be a string');
    return v;
  }
  if (type === 'bytes') {
    if (typeof v !== 'string' || !HEX_BYTES.test(v)) throw new Invalid(at, 'must be 0x-prefixed hex bytes');
    return v;
  }
  const fixed = FIXED_BYTES.exec(type);
  if (fixed) {
    const n = Number(fixed[1]);
    if (n < 1 || n > 32) throw new Invalid(at, `has type ${type}, which is not an EIP-712 type`);
    if (typeof v !== 'string' || !HEX_BYTES.test(v) || v.length !== 2 + 2 * n) throw new Invalid(at, `must be exactly ${n} bytes of 0x-prefixed hex`);
    return v;
  }
  const integer = INTEGER.exec(type);
  if (integer) return integerOf(integer[1] === '', integer[2] === '' ? 256 : Number(integer[2]), type, v, at);
  throw new Invalid(at, `has type ${type.slice(0, 64)}, which is neither an EIP-712 type nor one of typed_data.types`);
}

function integerOf(signed: boolean, bits: number, type: string, v: unknown, at: string): bigint {
  if (bits < 8 || bits > 256 || bits % 8 !== 0) throw new Invalid(at, `has type ${type}, which is not an EIP-712 type`);
  let n: bigint | null = null;
  if (typeof v === 'number' && Number.isSafeInteger(v)) n = BigInt(v);
  else if (typeof v === 'string' && /^-?[0-9]{1,78}$/.test(v)) n = BigInt(v);
  else if (typeof v === 'string' && /^0x[0-9a-fA-F]{1,64}$/.test(v)) n = BigInt(v);
  if (n === null) throw new Invalid(at, `must be an integer (${type}): a JSON number, or decimal or 0x-hex text for large values`);
  const min = signed ? -(1n << BigInt(bits - 1)) : 0n;
  const max = signed ? (1n << BigInt(bits - 1)) - 1n : (1n << BigInt(bits)) - 1n;
  if (n < min || n > max) throw new Invalid(at, `is out of range for ${type}`);
  return n;
}
