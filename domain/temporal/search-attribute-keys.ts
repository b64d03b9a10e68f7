// The custom search attributes operators filter runs by in the Temporal UI, e.g.
// `VaultOrgId = "…" AND VaultRunStatus = "failed"`. Workflow-safe: this file imports only
// @temporalio/common (the workflow bundle accepts it), so workflows upsert with the same keys.
// Values are ids and enum words, never names or anything secret: search attributes are not
// encoded by the payload codec and the server indexes them in plaintext.
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

export const VaultOrgId = defineSearchAttributeKey('VaultOrgId', SearchAttributeType.KEYWORD);
export const VaultAutomationId = defineSearchAttributeKey('VaultAutomationId', SearchAttributeType.KEYWORD);
export const VaultAgentId = defineSearchAttributeKey('VaultAgentId', SearchAttributeType.KEYWORD);
export const VaultTriggerType = defineSearchAttributeKey('VaultTriggerType', SearchAttributeType.KEYWORD);
export const VaultRunStatus = defineSearchAttributeKey('VaultRunStatus', SearchAttributeType.KEYWORD);

/** Every key the namespace must have registered (domain/temporal/search-attributes.ts). */
export const VAULT_SEARCH_ATTRIBUTES = [VaultOrgId, VaultAutomationId, VaultAgentId, VaultTriggerType, VaultRunStatus];
