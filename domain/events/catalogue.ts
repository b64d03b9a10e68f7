// Every event name a webhook may subscribe to, and the ones the service emits today. Adding an
// event is one line in EMITTED_EVENTS (and a call to emitEvent where it happens); the catalogue
// test keeps every emitted name subscribable.

/** Spec §6.1: the organization webhook events, grouped as the spec groups them. */
const SPEC_WEBHOOK_EVENTS = [
  // Treasury and wallets
  'wallet.transfer.sent', 'wallet.transfer.received', 'deposit.received', 'deposit.confirmed', 'deposit.credited',
  'deposit_destination.created', 'fiat.onramp.completed', 'fiat.offramp.completed', 'internal_transfer.completed',
  // Multisig proposals
  'proposal.created', 'proposal.signed', 'proposal.executed', 'proposal.cancelled',
  // Agent transactions and signing
  'agent.transaction.broadcast', 'agent.transaction.signed', 'signing_key.rotated',
  // Policies
  'policy.created', 'policy.updated', 'policy.deleted',
  // Payment cards
  'card.ordered', 'card.ready', 'card.revealed', 'card.voided', 'card.depleted', 'card.orphaned_payment', 'card.rejected',
  // Approvals
  'approval.created', 'approval.decided', 'pending_approval.created', 'pending_approval.approved',
  'pending_approval.rejected', 'pending_approval.executed', 'pending_approval.expired',
  // Platform
  'platform.user.connected', 'platform.user.claimed', 'platform.user.disconnected', 'platform.bootstrap.completed',
  'platform.grant.created', 'platform.grant.revoked',
  // Policy backend
  'policy_backend.circuit_breaker_opened', 'policy_backend.circuit_breaker_closed',
] as const;

/** Spec §6.3 (automation event triggers) and the reference's older webhook names for things this
 * service emits. `secret.accessed` is left out on purpose: reads are the hot path and are already
 * in the audit log (GET /v1/audit/events). */
const SECRET_AGENT_SHARE_EVENTS = [
  'secret.created', 'secret.updated', 'secret.rotated', 'secret.deleted',
  'agent.created', 'agent.deleted',
  'share.created', 'share.accessed', 'share.revoked',
  'vault.key_rotated', 'vault.cmek_rotated',
] as const;

/** Subscribes a webhook to every event, present and future. */
export const ALL_EVENTS = '*';

export const WEBHOOK_EVENT_NAMES: readonly string[] = [...SPEC_WEBHOOK_EVENTS, ...SECRET_AGENT_SHARE_EVENTS];
const known = new Set<string>([...WEBHOOK_EVENT_NAMES, ALL_EVENTS]);

/** The names in `events` that are not in the catalogue (for a 400 that names them). */
export function unknownEventNames(events: readonly string[]): string[] {
  return [...new Set(events.filter((e) => !known.has(e)))];
}

/** Events the service emits today: the DomainEvent type of emitEvent (domain/events/outbox.ts). */
export const EMITTED_EVENTS = [
  'secret.created', 'secret.updated', 'secret.rotated', 'secret.deleted',
  'policy.created', 'policy.updated', 'policy.deleted',
  'agent.created', 'agent.deleted',
  'approval.created', 'approval.decided', 'pending_approval.created', 'pending_approval.approved', 'pending_approval.rejected',
  'pending_approval.expired', 'pending_approval.executed',
  'share.created', 'share.accessed', 'share.revoked',
  'vault.key_rotated', 'vault.cmek_rotated',
  'signing_key.rotated',
  'agent.transaction.signed', 'agent.transaction.broadcast',
  'wallet.transfer.sent',
  'proposal.created', 'proposal.signed', 'proposal.executed', 'proposal.cancelled',
  'platform.user.connected', 'platform.user.claimed', 'platform.user.disconnected', 'platform.bootstrap.completed',
  'platform.grant.created', 'platform.grant.revoked',
] as const;

export type DomainEvent = (typeof EMITTED_EVENTS)[number];
