// Input schemas of the signing key routes. `chain` is checked for shape here; which chains exist
// and which key they map to is the domain's (domain/intents/signing-keys/signing-chains.ts), which
// answers 400 naming `chain` for a chain that is unknown.
import { z } from 'zod';
import { idParam } from '../../input/fields.ts';

/** A key family (`ethereum`), an EVM chain's name, or its chain_id (number, decimal or 0x-hex text). */
const chain = z.union([
  z.string().trim().min(1).max(100),
  z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
], { message: 'must be a chain name such as ethereum or base, or a chain_id' });

export const signingKeyAgentParams = z.object({ agent_id: idParam });
export const signingKeyParams = z.object({ agent_id: idParam, chain: z.string().max(100) });
export const createSigningKeyBody = z.object({ chain });
