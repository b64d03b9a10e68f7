// Google's public signing keys for ID tokens, held in memory. From a URL, jose's remote key set
// fetches them once, keeps them 10 minutes and refetches early only for an unknown `kid`, at most
// every 30 s (so a flood of made-up kids costs at most one fetch per cooldown). From a file (tests,
// air-gapped deployments that mirror the JWKS), the file is read at start and again when a token
// names an unknown `kid`, at most every FILE_REREAD_COOLDOWN_MS: a rotated file is picked up
// without a restart. No other outbound call happens at request time.
import fs from 'node:fs';
import { createLocalJWKSet, createRemoteJWKSet, errors, type CryptoKey, type JSONWebKeySet, type JWSHeaderParameters, type FlattenedJWSInput } from 'jose';
import type { GoogleConfig } from '../config.ts';

export const FILE_REREAD_COOLDOWN_MS = 5_000;

/** The key that verifies a token with this header (jose's resolver shape). */
export type KeyResolver = (header: JWSHeaderParameters, token: FlattenedJWSInput) => Promise<CryptoKey>;

/**
 * The keys could not be had (the URL did not answer, the file vanished or is not a key set): the
 * token may well be valid, so this is the server's problem (503), never counted against the caller.
 */
export class GoogleKeysUnavailable extends Error {}

/** A token naming no key, or one not (or no longer) in the set: the caller's problem (401). */
const isTokenProblem = (e: unknown) =>
  e instanceof errors.JWKSNoMatchingKey || e instanceof errors.JWKSMultipleMatchingKeys || e instanceof errors.JOSENotSupported;

export function googleKeys(jwks: GoogleConfig['jwks']): KeyResolver {
  if ('file' in jwks) return new FileKeySet(jwks.file).resolve;
  const remote = createRemoteJWKSet(new URL(jwks.url));
  return async (header, token) => {
    try {
      return await remote(header, token);
    } catch (e) {
      if (isTokenProblem(e)) throw e;
      throw new GoogleKeysUnavailable(`Google's keys could not be fetched from GOOGLE_JWKS_URL: ${(e as Error).message}`, { cause: e });
    }
  };
}

class FileKeySet {
  private readonly file: string;
  private keys: ReturnType<typeof createLocalJWKSet>;
  private readAt = 0;
  private rereading: Promise<void> | undefined;

  /** Reads the file now: a missing or malformed file stops the start, naming the variable. */
  constructor(file: string) {
    this.file = file;
    try {
      this.keys = createLocalJWKSet(JSON.parse(fs.readFileSync(file, 'utf8')) as JSONWebKeySet);
      this.readAt = Date.now();
    } catch (e) {
      throw new Error(`GOOGLE_JWKS_URL: ${file} is not a readable JSON Web Key Set (${(e as Error).message})`, { cause: e });
    }
  }

  readonly resolve: KeyResolver = async (header, token) => {
    try {
      return await this.keys(header, token);
    } catch (e) {
      if (!(e instanceof errors.JWKSNoMatchingKey) || Date.now() - this.readAt < FILE_REREAD_COOLDOWN_MS) throw e;
      // Concurrent requests with the new kid share one read.
      this.rereading ??= this.reread().finally(() => { this.rereading = undefined; });
      await this.rereading;
      return this.keys(header, token);
    }
  };

  private async reread(): Promise<void> {
    this.readAt = Date.now(); // before the read: a failing file is retried after the cooldown too
    try {
      this.keys = createLocalJWKSet(JSON.parse(await fs.promises.readFile(this.file, 'utf8')) as JSONWebKeySet);
    } catch (e) {
      // The old keys stay: a file being replaced must not lose the keys still in use.
      throw new GoogleKeysUnavailable(`GOOGLE_JWKS_URL: ${this.file} could not be re-read (${(e as Error).message})`, { cause: e });
    }
  }
}
