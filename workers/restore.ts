// `npm run restore -- <backup> <fresh DATA_DIR>`: a backup of `npm run backup` into a new data
// directory, every file checked against the backup's manifest. Start the service on it with
// `DATA_DIR=<dir> npm start` (docs/operations.md, "Backups and restore").
import path from 'node:path';
import { restoreDataDir } from '../db/backup/data-dir-restore.ts';

const say = (m: string) => process.stderr.write(`[restore] ${m}\n`);

try {
  const args = process.argv.slice(2);
  if (args.length !== 2) throw new Error('usage: npm run restore -- <backup directory> <new, empty DATA_DIR>');
  const [src, target] = args.map((a) => path.resolve(a)) as [string, string];
  say(`restoring ${src} into ${target}`);
  const m = await restoreDataDir(src, target, say);
  say(`backup of ${m.created_at} (PostgreSQL ${m.postgres.majorVersion}, ${m.postgres.mode}; Temporal state ${m.temporal === 'included' ? 'included' : 'not included: the worker re-drives what the database says is open'})`);
  if (m.root_key === 'environment') say('the backup holds no root key: start with the same ROOT_KEY as the backed-up deployment');
  if (m.kms_backend === 'pkcs11') say('KMS_BACKEND=pkcs11: start with the same token (restored from its own backup), PKCS11_TOKEN_LABEL and PKCS11_PIN');
  say(`start it: DATA_DIR=${target} npm start`);
} catch (e) {
  say(e instanceof Error ? e.message : String(e));
  process.exitCode = 1;
}
