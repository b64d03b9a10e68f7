// Decrypting a stored secret version for an answer: a version whose ciphertext or wrapped key does
// not authenticate in its context is refused with a 500 that says so (and never returns bytes).
// Secret reads and share opens both go through here.
import type { Kms } from '../crypto/kms/kms.ts';
import { decryptSecret, EnvelopeError, type Envelope, type EnvelopeContext } from '../crypto/envelope.ts';
import { Problem } from '../errors.ts';

export async function decryptForAnswer(kms: Kms, e: Envelope, c: EnvelopeContext): Promise<Buffer> {
  try {
    return await decryptSecret(kms, e, c);
  } catch (err) {
    if (err instanceof EnvelopeError) {
      throw new Problem(500, 'This secret version cannot be decrypted: its stored ciphertext or key does not match its location. It has not been returned.', { type: 'secret_integrity_error' });
    }
    throw err;
  }
}
