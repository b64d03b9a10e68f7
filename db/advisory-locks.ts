// Postgres advisory-lock ids, named once. Each serializes one kind of work across replicas.
export const ADVISORY_LOCKS = {
  /** Applying migrations (db/migrate.ts). */
  migrations: 727_001,
  /** Creating the first JWT signing key (domain/auth/jwt.ts). */
  jwtSigningKey: 727_002,
  /** Counting open link-only agent enrollments against their cap. */
  linkOnlyEnrollments: 727_003,
  /** Held for its session by the one replica that dispatches the event outbox (domain/events/dispatcher.ts). */
  outboxDispatcher: 727_004,
} as const;
