-- NormGym server schema, version 4: provenance of the verification and of
-- rooms.
-- runs.verifier is how the server recomputed the record: 'wasm' (replayed
-- inside the sim.wasm of sim_sha256) or 'native' (replayed by the Go core
-- built from the source of that sim.wasm, which did not run); '' for runs
-- stored before this version, whose verifier was not recorded.
-- rooms.teacher is the label of the teacher key that created the room (''
-- when the site lets anyone create rooms). A room's expiry is computed from
-- created_at and the server's room lifetime, so that an operator can change
-- it for every room.
-- ALTER TABLE has no IF NOT EXISTS: the Go migrator skips a column that
-- exists (a migration cut short), wrangler applies a file once.

ALTER TABLE runs ADD COLUMN verifier TEXT NOT NULL DEFAULT '';

ALTER TABLE rooms ADD COLUMN teacher TEXT NOT NULL DEFAULT '';
