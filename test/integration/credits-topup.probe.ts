// A paid top-up as the payment processor's webhook lands it (domain/billing/credit-repository.ts
// addCredits), for HTTP tests that need credits before the processor is in place. Prints whether
// it landed (false: that payment had already). Usage: DATABASE_URL=… credits-topup.probe.ts <org id> <micro-dollars> <payment ref>
import { openDb } from '../../db/orm.ts';
import { addCredits } from '../../domain/billing/credit-repository.ts';

const [orgId, micros, ref] = process.argv.slice(2);
const orm = await openDb(process.env.DATABASE_URL!, 1);
try {
  process.stdout.write(JSON.stringify(await addCredits(orm.em.fork(), orgId!, Number(micros), { externalRef: ref!, description: 'Credit top-up' })));
} finally {
  await orm.close();
}
