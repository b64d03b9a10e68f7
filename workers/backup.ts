// `npm run backup -- <dest>`: a backup of the local deployment in DATA_DIR (the embedded
// PostgreSQL, the Temporal dev server's state, the root key), taken while it runs, into the new
// directory <dest>. db/backup/data-dir-backup.ts says what it holds; docs/operations.md
// ("Backups and restore") how to restore it and what a deployment on its own PostgreSQL does.
import path from 'node:path';
import { loadConfig, ConfigError } from '../domain/config.ts';
import { backupDataDir } from '../db/backup/data-dir-backup.ts';

const say = (m: string) => process.stderr.write(`[backup] ${m}\n`);

try {
  const args = process.argv.slice(2);
  if (args.length !== 1) throw new ConfigError('usage: npm run backup -- <new directory for the backup>');
  const config = loadConfig(process.env);
  if (config.databaseUrl) {
    throw new ConfigError('DATABASE_URL is set: this service uses your own PostgreSQL, which npm run backup does not copy. Back it up with pg_dump of your server\'s version, and keep ROOT_KEY (docs/operations.md, "Backups and restore").');
  }
  const dest = path.resolve(args[0]!);
  say(`backing up DATA_DIR=${config.dataDir} into ${dest}`);
  const m = await backupDataDir({
    dataDir: config.dataDir, dest, kmsBackend: config.kms.backend, rootKeyFromEnv: config.rootKey !== undefined, log: say,
  });
  const files = m.entries.filter((e) => e.type === 'file');
  const bytes = files.reduce((n, e) => n + (e.type === 'file' ? e.size : 0), 0);
  say(`done: ${files.length} files, ${(bytes / 1e6).toFixed(1)} MB, PostgreSQL ${m.postgres.mode} (${m.postgres.startLsn ?? 'stopped'} .. ${m.postgres.stopLsn ?? 'stopped'}), Temporal state ${m.temporal}`);
  if (m.root_key === 'included') say('the backup holds the root key: whoever has it can read every secret; store it encrypted and apart from other copies of the data');
  else say('the root key is not in the backup (the service reads ROOT_KEY): keep ROOT_KEY, the restored data needs the same one');
  if (m.kms_backend === 'pkcs11') say('KMS_BACKEND=pkcs11: vault and signing keys live in the token, not in this backup: back up the token too (docs/operations.md)');
  process.stdout.write(`${dest}\n`);
} catch (e) {
  say(e instanceof ConfigError ? e.message : e instanceof Error ? e.stack ?? e.message : String(e));
  process.exitCode = 1;
}
