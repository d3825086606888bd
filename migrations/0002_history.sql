-- Time travel (GET /bonsai/v1/history/state): the latest change of each key at or before a revision is found by
-- walking this index (it covers the columns the query reads, so the object texts are read only for the answer).
CREATE INDEX IF NOT EXISTS changes_by_key ON changes (resource, namespace, name, rv, type);
-- When each committed batch of changes was written (simulated clock, ms): one row per group commit, keyed by the
-- batch's last revision, so the time of revision N is that of the first row at or after N.
CREATE TABLE IF NOT EXISTS revision_times (
  rv INTEGER PRIMARY KEY,
  ms INTEGER NOT NULL
);
