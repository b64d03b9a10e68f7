// Chooses the key backend from configuration (KMS_BACKEND). The PKCS#11 module is loaded only
// when it is asked for, so a deployment on `local` needs no native HSM library.
import type { Config } from '../../config.ts';
import type { Kms } from './kms.ts';
import { openLocalKms } from './local.ts';

export async function openKms(config: Config, rootKey: Buffer): Promise<Kms> {
  if (config.kms.backend === 'local') return openLocalKms(rootKey);
  const { openPkcs11Kms } = await import('./pkcs11.ts');
  return openPkcs11Kms(config.kms);
}
