-- NormGym server schema, version 10: a room's reveal is recorded. In a
-- room where everyone plays the same visit, the server withholds from each
-- student's answers (the session's done state, GET /api/runs) the visit,
-- the record, its hash and whether the probe answer was right until the
-- teacher reveals the rule (GET /api/rooms/CODE/reveal); revealed_at is
-- when that first happened (unix milliseconds), NULL before.
-- ALTER TABLE has no IF NOT EXISTS: the Go migrator skips a column that
-- exists (a migration cut short), wrangler applies a file once.

ALTER TABLE rooms ADD COLUMN revealed_at INTEGER;
