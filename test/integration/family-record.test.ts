// The one statement that records a non-EVM transfer (family-record-repository.ts), run directly
// against the test database: a submit reserves what it spends; a sign-only transfer reserves
// nothing but is refused, writing nothing, when what it spends is held by an open transaction
// (Bitcoin coins and XRP sequences; Cardano UTxOs), and passes once that transaction has ended.
import { randomUUID } from 'node:crypto';
import { closeDb, db, signup } from '../helpers/api.ts';
import { registerAgent } from '../helpers/agent-fixtures.ts';
import { positional } from '../../db/hot-reads.ts';
import { recordFamilyTransfer, type FamilyRecord } from '../../domain/intents/families/family-record-repository.ts';
import type { StatementRunner } from '../../domain/intents/transactions/transaction-repository.ts';

const run: StatementRunner = async (text, params) => (await db().query(positional(text), params)).rows;
let orgId: string;
let agentId: string;

beforeAll(async () => {
  const owner = await signup('family-record');
  orgId = owner.orgId;
  agentId = (await registerAgent(owner)).id;
});
afterAll(closeDb);

/** A transfer record of `family`; sign-only ones carry their event. */
function transfer(family: 'bitcoin' | 'cardano', mode: 'submit' | 'sign_only', uses: string[]): FamilyRecord {
  const id = randomUUID();
  return {
    id, orgId, agentId, family, chain: family === 'bitcoin' ? 'bitcoin-regtest' : 'cardano-preprod', chainId: family === 'bitcoin' ? 18443 : 1,
    from: `${family}-sender-${agentId}`, to: `${family}-payee`, value: 1000n, spend: 1000n,
    status: mode === 'submit' ? 'signed' : 'sign_only', signedTx: '00', txHash: randomUUID().replaceAll('-', ''), fee: 10n, details: {},
    spends: mode === 'submit' ? uses : [], holds: mode === 'sign_only' ? uses : [],
    idempotencyKey: null, requestDigest: 'digest', createdBy: `agent:${agentId}`, caps: { dailyLimit: null, maxCount: null },
    event: mode === 'sign_only' ? { id: randomUUID(), payload: { transaction_id: id } } : null,
  };
}

const rowsOf = async (id: string) => (await db().query('SELECT status FROM agent_transactions WHERE id = $1', [id])).rows;
const eventsOf = async (id: string) => (await db().query("SELECT 1 FROM event_outbox WHERE payload->>'transaction_id' = $1", [id])).rows;

test.each([
  ['bitcoin', 'bitcoin_spent_outpoints', 'outpoint', `${'ab'.repeat(32)}:0`, `${'cd'.repeat(32)}:1`],
  ['cardano', 'cardano_spent_utxos', 'utxo', `${'ab'.repeat(32)}#0`, `${'cd'.repeat(32)}#1`],
] as const)('%s: a sign-only transfer spending what an open submit holds is refused and writes nothing; once the submit ends it is recorded, reserving nothing',
  async (family, table, column, held, free) => {
    const submit = transfer(family, 'submit', [held]);
    expect((await recordFamilyTransfer(run, submit, null)).refused).toBeNull();

    const clash = transfer(family, 'sign_only', [free, held]);
    expect(await recordFamilyTransfer(run, clash, null)).toEqual({ row: null, refused: 'outpoint_taken' });
    expect(await rowsOf(clash.id)).toEqual([]);
    expect(await eventsOf(clash.id)).toEqual([]);

    const apart = transfer(family, 'sign_only', [free]);
    expect((await recordFamilyTransfer(run, apart, null)).row?.status).toBe('sign_only');
    expect(await eventsOf(apart.id)).toHaveLength(1);
    expect((await db().query(`SELECT 1 FROM ${table} WHERE ${column} = $1`, [free])).rows).toEqual([]); // held back from nobody

    await db().query("UPDATE agent_transactions SET status = 'failed' WHERE id = $1", [submit.id]);
    const later = transfer(family, 'sign_only', [held]);
    expect((await recordFamilyTransfer(run, later, null)).row?.status).toBe('sign_only');
  });
