// Versioned schema of the PostgreSQL adapter. Each entry runs once, in order, in its own transaction; the list only
// grows (a released migration is never edited: instances of the previous version may still be running on it).
import type { PoolClient } from 'pg';

/** Every migration, index + 1 = its version. */
export const MIGRATIONS: readonly string[] = [
  `CREATE TABLE gb_perimeters (id text PRIMARY KEY, body jsonb NOT NULL);
   CREATE TABLE gb_revision (one boolean PRIMARY KEY DEFAULT true CHECK (one), rev bigint NOT NULL);
   INSERT INTO gb_revision (one, rev) VALUES (true, 0);
   CREATE TABLE gb_counters (key text PRIMARY KEY, window_start bigint NOT NULL, count integer NOT NULL, refused boolean NOT NULL DEFAULT false);
   CREATE TABLE gb_instances (id text PRIMARY KEY, version text NOT NULL, started_at timestamptz NOT NULL, last_seen timestamptz NOT NULL);
   CREATE TABLE gb_quota (one boolean PRIMARY KEY DEFAULT true CHECK (one), remaining integer NOT NULL, quota integer NOT NULL, reset_at text NOT NULL, seen_at timestamptz NOT NULL);`,
  // Proposals (issue 14): the whole record in `body`; the columns a query filters or orders on are copied out of it.
  `CREATE TABLE gb_proposals (id text PRIMARY KEY, perimeter text NOT NULL, kind text NOT NULL, idempotency_key text,
     status text NOT NULL, created_at text NOT NULL, body jsonb NOT NULL);
   CREATE UNIQUE INDEX gb_proposals_key ON gb_proposals (perimeter, kind, idempotency_key) WHERE idempotency_key IS NOT NULL;
   CREATE INDEX gb_proposals_list ON gb_proposals (perimeter, status, created_at);`,
  // Keys every instance must share (the change-cursor seal).
  `CREATE TABLE gb_keys (name text PRIMARY KEY, bytes bytea NOT NULL CHECK (length(bytes) = 32));`,
  // Where a perimeter came from (issue 25: config or runtime). A column, not a field of `body`: an instance of the
  // previous version reads `body` strictly and would refuse a row carrying a field it does not know; its writes set
  // `body` only, so they leave the origin as it was (and a row it inserts has none: kept, like a runtime one).
  `ALTER TABLE gb_perimeters ADD COLUMN origin text CHECK (origin IN ('config', 'runtime'));`,
  // Issue 19: the store's bounds per perimeter need each record's size and last change without reading its body.
  // `bytes` of rows stored before this version is PostgreSQL's own rendering of the body, a close estimate; rows
  // written from now on carry `proposalBytes` (core), the number the file adapter counts.
  `ALTER TABLE gb_proposals ADD COLUMN bytes integer NOT NULL DEFAULT 0, ADD COLUMN updated_at text NOT NULL DEFAULT '';
   UPDATE gb_proposals SET bytes = octet_length(body::text), updated_at = body->>'updated_at';`,
  // Issue 21: the approval page's signed-in browsers, shared so a balancer may send each request to any instance.
  // Only the SHA-256 of a cookie's id; times are the database's.
  `CREATE TABLE gb_web_sessions (id_hash text PRIMARY KEY, created_at timestamptz NOT NULL, last_seen timestamptz NOT NULL);
   CREATE INDEX gb_web_sessions_seen ON gb_web_sessions (last_seen);`,
  // Issue 21: which store an instance's perimeter copy came from. `epoch` is drawn once, here: a database created
  // afresh (and migrated) has another one. `stamp` is redrawn by every change, so a restored or failed-over database
  // whose revision climbs back to the number a copy holds is still seen as different. An instance of the previous
  // version leaves the stamp as it was; its changes still bump the revision.
  `ALTER TABLE gb_revision ADD COLUMN epoch text NOT NULL DEFAULT md5(random()::text || clock_timestamp()::text),
     ADD COLUMN stamp text NOT NULL DEFAULT '';`,
  // Issue 21 §2: which instance approved or is applying a proposal, and when an instance stopped (its row is kept, so
  // "gone for longer than the silence bound" can be told after a clean stop too). Rows of the previous version have
  // no applier: settled at the next start, as that version did.
  `ALTER TABLE gb_proposals ADD COLUMN applying_by text;
   ALTER TABLE gb_instances ADD COLUMN stopped_at timestamptz;`,
  // Issue 21: every instance ships its chained audit entries here after appending them locally. `line` is the entry
  // exactly as chained (text, never jsonb, which would reorder its keys and break the hash); the other columns are
  // copied out of it for queries. The head moves in the same transaction as the rows it covers.
  `CREATE TABLE gb_audit (instance text NOT NULL, seq bigint NOT NULL, ts timestamptz NOT NULL, kind text NOT NULL,
     perimeter text, tool text, client text, verdict text, line text NOT NULL, PRIMARY KEY (instance, seq));
   CREATE INDEX gb_audit_time ON gb_audit (ts, instance, seq);
   CREATE TABLE gb_audit_heads (instance text PRIMARY KEY, seq bigint NOT NULL, hash text NOT NULL,
     shipped_at timestamptz NOT NULL);`,
  // Issue 23: each agent key names an agent. A column (key id -> agent id), not a field of the keys in `body`, for the
  // reason of migration 4: the previous version reads `body` strictly. Keys stored before become agents `key-<keyId>`.
  `ALTER TABLE gb_perimeters ADD COLUMN agents jsonb NOT NULL DEFAULT '{}'::jsonb;
   UPDATE gb_perimeters SET agents = COALESCE(
     (SELECT jsonb_object_agg(k->>'id', 'key-' || (k->>'id')) FROM jsonb_array_elements(body->'keys') AS k), '{}'::jsonb)
   WHERE jsonb_typeof(body->'keys') = 'array';
   CREATE TABLE gb_agent_use (perimeter text NOT NULL, agent text NOT NULL, last_used timestamptz NOT NULL,
     PRIMARY KEY (perimeter, agent));`,
  // Issue 23 §2: presence (recent notes per repository branch; `seen` is one row per agent and branch, refreshed in
  // place) and leases. Times are the database's: instances' clocks may differ.
  `CREATE TABLE gb_activity (id bigserial PRIMARY KEY, kind text NOT NULL CHECK (kind IN ('seen', 'wrote')),
     perimeter text NOT NULL, agent text NOT NULL, repo text NOT NULL, branch text NOT NULL, paths jsonb NOT NULL,
     at timestamptz NOT NULL DEFAULT clock_timestamp());
   CREATE UNIQUE INDEX gb_activity_seen ON gb_activity (repo, branch, perimeter, agent) WHERE kind = 'seen';
   CREATE INDEX gb_activity_recent ON gb_activity (repo, branch, at);
   CREATE TABLE gb_leases (id text PRIMARY KEY, perimeter text NOT NULL, agent text NOT NULL, repo text NOT NULL,
     branch text NOT NULL, patterns jsonb NOT NULL, write jsonb NOT NULL, expires_at timestamptz NOT NULL);
   CREATE INDEX gb_leases_branch ON gb_leases (repo, branch, expires_at);
   CREATE INDEX gb_leases_agent ON gb_leases (perimeter, agent);`,
  // Retention of the audit copy: each instance records its ledger's retention with its head (an instance of the
  // previous version leaves them NULL: the ledger's defaults apply), and the sweep finds segment starts by index.
  `ALTER TABLE gb_audit_heads ADD COLUMN keep integer, ADD COLUMN min_age_ms bigint;
   CREATE INDEX gb_audit_checkpoints ON gb_audit (instance, seq) WHERE kind = 'checkpoint';`,
  // Presence notes are capped per repository and perimeter (one perimeter's writes never push out another's).
  `CREATE INDEX gb_activity_perimeter ON gb_activity (repo, perimeter, at);`,
  // Presence reads the pending proposals of one repository branch (the list filters on the body's repo and branch).
  `CREATE INDEX gb_proposals_pending_on ON gb_proposals ((body->>'repo'), (body->>'branch')) WHERE status = 'pending';`,
];

// Any constant both versions agree on; it only has to differ from other advisory locks taken on the same database.
const MIGRATION_LOCK = 0x67626c6e; // "gbln"

/**
 * Brings the schema to this version under a session advisory lock, so instances starting together migrate once.
 * Refuses a database migrated by a newer version: this code would misread what it does not know.
 */
export async function migrate(
  client: PoolClient,
): Promise<{ ok: true; version: number } | { ok: false; message: string }> {
  await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
  try {
    await client.query(
      'CREATE TABLE IF NOT EXISTS gb_schema (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    const got = await client.query<{ v: number | null }>('SELECT max(version) AS v FROM gb_schema');
    const current = got.rows[0]?.v ?? 0;
    if (current > MIGRATIONS.length) {
      return {
        ok: false,
        message: `The store's schema is version ${current}, newer than this git-blinder knows (${MIGRATIONS.length}); upgrade this instance.`,
      };
    }
    for (let v = current + 1; v <= MIGRATIONS.length; v++) {
      await client.query('BEGIN');
      try {
        await client.query(MIGRATIONS[v - 1] ?? '');
        await client.query('INSERT INTO gb_schema (version) VALUES ($1)', [v]);
        await client.query('COMMIT');
      } catch (e) {
        await client.query('ROLLBACK');
        throw e;
      }
    }
    return { ok: true, version: MIGRATIONS.length };
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
  }
}
