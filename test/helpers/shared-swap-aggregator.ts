// The fake exchange aggregator of the test stack (started once by global-setup.ts, which gives its
// URL to the stack as SWAP_API_URL). Test files reach the same object through the main context's
// global: jest gives each file its own module registry, so a module-level variable would not do.
import vm from 'node:vm';
import type { FakeSwapAggregator } from './fake-swap-aggregator.ts';

export const SWAP_API_KEY = 'test-0x-api-key';

const KEY = Symbol.for('ocv-vault.test.swap-aggregator');
const mainGlobal = () => vm.runInThisContext('globalThis') as Record<symbol, FakeSwapAggregator | undefined>;

export function shareSwapAggregator(fake: FakeSwapAggregator): void {
  mainGlobal()[KEY] = fake;
}

export function sharedSwapAggregator(): FakeSwapAggregator {
  const fake = mainGlobal()[KEY];
  if (!fake) throw new Error('the fake swap aggregator is started by test/helpers/global-setup.ts');
  return fake;
}
