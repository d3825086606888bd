-- The change log holds every object state once, keyed by the global revision; `objects` points at each
-- object's current revision. Compaction drops log entries that are neither recent nor current.
CREATE TABLE IF NOT EXISTS meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS changes (
  rv        INTEGER PRIMARY KEY,
  resource  TEXT NOT NULL,
  namespace TEXT NOT NULL,
  name      TEXT NOT NULL,
  type      TEXT NOT NULL,
  value     TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS objects (
  resource  TEXT NOT NULL,
  namespace TEXT NOT NULL,
  name      TEXT NOT NULL,
  rv        INTEGER NOT NULL,
  PRIMARY KEY (resource, namespace, name)
) WITHOUT ROWID;
