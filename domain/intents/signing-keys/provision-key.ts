// Making an agent's signing key: the key pair inside the KMS, its handle as the next version of the
// agent's secret in the reserved `__agent-keys` vault, then the row, in one transaction. With
// `previous`, a rotation: the previous key is retired and its handle erased in the same
// transaction, and the event emitted there. A KMS key whose records could not be written is
// destroyed unused. Used by the signing-key commands and by a platform bootstrap.
import type { EntityManager } from '@mikro-orm/postgresql';
import { randomUUID } from 'node:crypto';
import { toHex } from 'viem';
import type { Kms } from '../../crypto/kms/kms.ts';
import type { AgentKeysVault } from '../../vaults/agent-keys-vault.ts';
import { emitEvent } from '../../events/outbox.ts';
import { conflict } from '../../errors.ts';
import type { SigningChain } from './signing-chains.ts';
import { KEY_FAMILIES } from './key-families.ts';
import { handlePath, shredHandle, storeHandle } from './key-handles.ts';
import { activeSigningKey, deactivateSigningKey, handleOf, insertSigningKey, nextKeyVersion, type SigningKeyRow } from './key-repository.ts';

/** Who makes the key: the agent's organization, and the subject (`user:<id>`) recorded as its creator. */
export type KeyMaker = { orgId: string; subject: string };

export async function provisionSigningKey(
  em: EntityManager, kms: Kms, by: KeyMaker, vault: AgentKeysVault, agentId: string, chain: SigningChain, previous: SigningKeyRow | null, id: string = randomUUID(),
): Promise<SigningKeyRow> {
  const family = KEY_FAMILIES[chain];
  const made = await family.create(kms, `agent:${agentId}:${chain}:${id}`);
  const publicKey = toHex(made.publicKey);
  try {
    return await em.transactional(async (tx) => {
      if (previous) {
        const locked = await activeSigningKey(tx, by.orgId, agentId, chain, true);
        if (locked?.id !== previous.id || !(await deactivateSigningKey(tx, previous.id))) {
          throw conflict(`The ${chain} signing key changed while rotating it; read the keys again`);
        }
        await shredHandle(tx, handleOf(previous));
      }
      const path = handlePath(agentId, chain);
      const version = await storeHandle(tx, kms, vault, path, made.ref, by.subject);
      const key = await insertSigningKey(tx, {
        id, org_id: by.orgId, agent_id: agentId, chain, curve: family.curve, public_key: publicKey,
        address: family.address(made.publicKey), key_version: await nextKeyVersion(tx, agentId, chain), key_backend: kms.backend,
        handle_vault_id: vault.id, handle_path: path, handle_version: version, created_by: by.subject,
        rotated: previous !== null,
      });
      if (previous) {
        await emitEvent(tx, by.orgId, 'signing_key.rotated', {
          agent_id: agentId, chain, key_id: key.id, key_version: key.key_version, address: key.address,
          previous_key_id: previous.id, previous_address: previous.address, actor: by.subject,
        });
      }
      return key;
    });
  } catch (e) {
    await kms.destroySigningKey(made.ref).catch(() => {}); // recorded nowhere: never used
    throw e;
  }
}
