-- Objects (current state) and the change log, keyed by one global revision.
CREATE TABLE IF NOT EXISTS meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS objects (
  resource  TEXT NOT NULL,
  namespace TEXT NOT NULL,
  name      TEXT NOT NULL,
  rv        INTEGER NOT NULL,
  value     TEXT NOT NULL,
  PRIMARY KEY (resource, namespace, name)
);
CREATE TABLE IF NOT EXISTS changes (
  rv        INTEGER PRIMARY KEY,
  resource  TEXT NOT NULL,
  namespace TEXT NOT NULL,
  name      TEXT NOT NULL,
  type      TEXT NOT NULL,
  value     TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS changes_by_resource ON changes (resource, rv);
