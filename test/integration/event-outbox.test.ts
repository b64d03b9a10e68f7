// The event outbox against the stack's Postgres:
//   - the dispatcher's read of pending events: oldest first by the bigint sequence, which text
//     order would break as soon as sequence numbers change length (10 before 9); inside a
//     transaction that is rolled back, so the stack's own dispatcher never sees the rows;
//   - how the dispatcher is woken: the outbox trigger's NOTIFY at commit, except for events written
//     on the hot pool, whose writers wake it after their commit (migration 0023).
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { closeDb, db, eventually } from '../helpers/api.ts';
import { pgEm } from '../helpers/pg-em.ts';
import { OUTBOX_CHANNEL, wakeOutbox } from '../../domain/events/outbox.ts';
import { pendingEvents } from '../../domain/events/outbox-repository.ts';
import { hotReads, type HotReads } from '../../db/hot-reads.ts';

afterAll(closeDb);

test('pending events come in sequence order across a change of digit count, and dispatched ones are left out', async () => {
  const client = await db().connect();
  try {
    await client.query('BEGIN');
    // Above any sequence number the stack has handed out, and of different lengths.
    const seqs = ['9000000000000000', '10000000000000000', '9500000000000000', '100000000000000000'];
    const ids = seqs.map(() => randomUUID());
    const orgId = randomUUID();
    for (const [i, seq] of seqs.entries()) {
      await client.query('INSERT INTO event_outbox (id, seq, org_id, event_type, payload) VALUES ($1, $2, $3, $4, $5)',
        [ids[i], seq, orgId, 'test.ordering', '{}']);
    }
    await client.query('UPDATE event_outbox SET dispatched_at = now() WHERE id = $1', [ids[2]]); // 9500…: already dispatched
    const mine = (await pendingEvents(pgEm(client), 100_000)).filter((e) => e.org_id === orgId);
    expect(mine.map((e) => e.seq)).toEqual(['9000000000000000', '10000000000000000', '100000000000000000']);
    expect(mine.map((e) => e.id)).toEqual([ids[0], ids[1], ids[3]]);
  } finally {
    await client.query('ROLLBACK');
    client.release();
  }
});

describe('waking the dispatcher', () => {
  let listener: pg.Client;
  let hot: HotReads;
  const heard: string[] = [];

  beforeAll(async () => {
    listener = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await listener.connect();
    listener.on('notification', (n) => { if (n.channel === OUTBOX_CHANNEL) heard.push(n.payload ?? ''); });
    await listener.query(`LISTEN ${OUTBOX_CHANNEL}`);
    hot = hotReads(process.env.TEST_DATABASE_URL!, 2, 'test-outbox');
  });
  afterAll(async () => {
    await listener.end();
    await hot.close();
  });

  /** Everything heard up to a marker notified now: notifications arrive in commit order. */
  async function heardUntilMarker(): Promise<string[]> {
    const marker = `marker-${randomUUID()}`;
    await db().query('SELECT pg_notify($1, $2)', [OUTBOX_CHANNEL, marker]);
    await eventually('the marker notification', async () => heard.includes(marker) || undefined, 10_000);
    return heard.splice(0, heard.indexOf(marker) + 1).slice(0, -1);
  }

  const insertEvent = (q: { query: (text: string, values: unknown[]) => Promise<unknown> }) =>
    q.query("INSERT INTO event_outbox (id, org_id, event_type, payload) VALUES ($1, $2, 'test.wake', '{}')", [randomUUID(), randomUUID()]);

  test('an event written by any other session notifies at its commit (the trigger)', async () => {
    await heardUntilMarker();
    await insertEvent(db());
    expect(await heardUntilMarker()).toContain('');
  });

  test('an event written on the hot pool does not notify inside its transaction; its writer wakes the dispatcher after the commit, a burst with a few NOTIFYs', async () => {
    await heardUntilMarker();
    await insertEvent({ query: (text, values) => hot.rows(text, values) });
    expect(await heardUntilMarker()).not.toContain('');

    for (let i = 0; i < 200; i++) wakeOutbox(hot);
    await eventually('a wake', async () => heard.includes('') || undefined, 10_000);
    const wakes = (await heardUntilMarker()).filter((p) => p === '');
    expect(wakes.length).toBeGreaterThanOrEqual(1);
    expect(wakes.length).toBeLessThanOrEqual(2); // the first poke sends; the 199 during it make one more
  });
});
