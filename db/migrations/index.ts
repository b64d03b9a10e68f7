// Every migration, in order. A migration is never edited after it lands; add a new one.
import * as m0001 from './0001_foundation.ts';

export type Migration = { name: string; up: string };
export const migrations: Migration[] = [m0001];
