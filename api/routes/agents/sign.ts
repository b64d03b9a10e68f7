// The unified sign endpoint (spec §4.9; reference signIntent): the agent's key signs an EIP-191
// message, EIP-712 typed data, a raw digest or an EVM transaction of type 0 to 4; on Solana a
// message or a transaction the agent provides, on Bitcoin a message or a PSBT, on XRP a provided xrpl_tx_json
// (domain/intents/families/family-sign-commands.ts). Sign only:
// nothing is broadcast. The agent itself (token with the intents_api_enabled claim) or an owner
// or admin of its organization; the rules are the domain's (domain/intents/sign-commands.ts).
import { route } from '../../route.ts';
import { signIntentBody, signIntentParams } from './sign-schema.ts';
import { SignIntentResultSchema, presentFamilySignResult, presentSignIntentResult } from '../../presenters/intents.ts';
import { invalidField } from '../../../domain/errors.ts';

export const signRoutes = [
  route({
    method: 'POST', path: '/v1/agents/:agent_id/sign', tag: 'Signing', auth: 'principal',
    summary: "Sign with the agent's key: personal_sign (EIP-191), typed_data (EIP-712), eip712_digest (a raw 32-byte hash) or a transaction of type 0 to 4; sign only, never broadcast",
    params: signIntentParams, body: signIntentBody,
    success: { status: 200, description: 'The signature (and for a transaction the signed serialization and its hash)', schema: SignIntentResultSchema },
    errors: {
      400: 'A field is missing or invalid for the intent (named in errors[]), or the chain is unknown',
      403: "No intents_api_enabled claim or the agent's Intents API is off; another agent; a member; personal_sign or eip712_digest switched off for the agent",
      404: 'Agent not found, or the agent has no active signing key',
      409: 'The signing key was rotated or deactivated while signing',
    },
    handler: async ({ params, body, action, services: s }) => {
      if (s.familySigning.handles(body.chain)) return presentFamilySignResult(await s.familySigning.sign(action, params.agent_id, body));
      if (body.raw_transaction !== undefined) throw invalidField('raw_transaction', 'is for Solana; on an EVM chain send the transaction\'s fields');
      if (body.tron_transaction !== undefined) throw invalidField('tron_transaction', 'is for Tron networks; on an EVM chain send the transaction\'s fields');
      return presentSignIntentResult(await s.intents.sign(action, params.agent_id, body));
    },
  }),
];
