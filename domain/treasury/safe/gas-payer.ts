// Who pays the gas of `execTransaction`: the service sends it from an agent's provisioned
// ethereum signing key (the Intents API's keys, domain/intents/signing-keys), so the executing
// human supplies nothing. The treasury's gas_payer_agent_id when set, else its first agent signer
// (by the time it was added) that has an active key. The Safe itself refunds nothing (safe-tx.ts).
import type { EntityManager } from '@mikro-orm/postgresql';
import { activeSigningKey } from '../../intents/signing-keys/key-repository.ts';
import { conflict } from '../../errors.ts';
import type { SignerRow, TreasuryRow } from './treasury-repository.ts';

export async function gasPayerOf(em: EntityManager, t: TreasuryRow, signers: SignerRow[]): Promise<{ agentId: string; address: string }> {
  const candidates = t.gas_payer_agent_id ? [t.gas_payer_agent_id] : signers.filter((s) => s.signer_type === 'agent').map((s) => s.signer_id);
  for (const agentId of candidates) {
    const key = await activeSigningKey(em, t.org_id, agentId, 'ethereum');
    if (key) return { agentId, address: key.address };
  }
  throw conflict(t.gas_payer_agent_id
    ? 'The treasury\'s gas payer agent has no active ethereum signing key to send execTransaction from'
    : 'No agent signer of this treasury has an active ethereum signing key to pay the gas of execTransaction: set gas_payer_agent_id (PATCH /v1/treasury/{id})');
}
