-- NormGym server schema, version 2: a participant's trajectory is stored
-- once. A second run of the same participant, visit and trajectory hash
-- under another run_id is a duplicate (PutRun returns the stored run).
-- Anonymous runs (participant '') are not covered. A database that
-- already holds such duplicates fails here: remove them first.

CREATE UNIQUE INDEX IF NOT EXISTS runs_trajectory ON runs (participant, visit, hash) WHERE participant <> '';
