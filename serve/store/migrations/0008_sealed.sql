-- NormGym server schema, version 8: every sealed session counts, rooms
-- apart, a trajectory once per row.
--
-- A sealed session (a person's outside a classroom, or a submitter key's
-- suite session) counts in its row's figures from the moment it is opened:
-- session_totals counts, per suite version × kind × agent × condition ×
-- family, the sessions opened and those finished (stored as a run); the
-- server counts the open ones still within their time, and the rest are
-- abandoned: part of the figures, never a success. session_owners counts a
-- row's distinct participants. The sessions' condition (with its variant,
-- as runs.condition || '+' || variant), family ('' under control) and world
-- are kept with them; sessions of earlier versions get theirs from their
-- visit id below.
--
-- A classroom's runs are the class's: the leaderboard's totals no longer
-- count runs with a room (the room's dashboard reads them from runs). And a
-- trajectory counts once per row: a run whose visit and trajectory hash a
-- run of the same suite version, client, agent and provenance already has
-- is stored (for its submitter) but not counted again. The totals are
-- recomputed from the runs under both rules.
-- ALTER TABLE has no IF NOT EXISTS: the Go migrator skips a column that
-- exists (a migration cut short), wrangler applies a file once.

ALTER TABLE sessions ADD COLUMN condition TEXT NOT NULL DEFAULT '';

ALTER TABLE sessions ADD COLUMN family TEXT NOT NULL DEFAULT '';

ALTER TABLE sessions ADD COLUMN world TEXT NOT NULL DEFAULT '';

UPDATE sessions SET
  world = substr(visit, 1, instr(visit, '/') - 1),
  condition = substr(substr(substr(visit, instr(visit, '/') + 1), instr(substr(visit, instr(visit, '/') + 1), '/') + 1), 1,
    instr(substr(substr(visit, instr(visit, '/') + 1), instr(substr(visit, instr(visit, '/') + 1), '/') + 1), '/') - 1),
  family = CASE WHEN norm = 'none' OR instr(norm, '.') = 0 THEN '' ELSE substr(norm, 1, instr(norm, '.') - 1) END
WHERE condition = '';

CREATE TABLE IF NOT EXISTS session_totals (
  suite         TEXT    NOT NULL,
  suite_version TEXT    NOT NULL,
  kind          TEXT    NOT NULL,
  agent         TEXT    NOT NULL,
  condition     TEXT    NOT NULL,
  family        TEXT    NOT NULL,
  opened        INTEGER NOT NULL DEFAULT 0,
  finished      INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (suite, suite_version, kind, agent, condition, family)
);

CREATE TABLE IF NOT EXISTS session_owners (
  suite         TEXT NOT NULL,
  suite_version TEXT NOT NULL,
  kind          TEXT NOT NULL,
  agent         TEXT NOT NULL,
  participant   TEXT NOT NULL,
  PRIMARY KEY (suite, suite_version, kind, agent, participant)
) WITHOUT ROWID;

INSERT OR REPLACE INTO session_totals (suite, suite_version, kind, agent, condition, family, opened, finished)
SELECT suite, suite_version, kind, agent, condition, family, COUNT(*), SUM(run_id <> '')
FROM sessions
WHERE sealed = 1 AND room = '' AND kind IN ('human', 'model')
GROUP BY suite, suite_version, kind, agent, condition, family;

INSERT OR IGNORE INTO session_owners (suite, suite_version, kind, agent, participant)
SELECT DISTINCT suite, suite_version, kind, agent, participant
FROM sessions
WHERE sealed = 1 AND room = '' AND kind IN ('human', 'model');

CREATE INDEX IF NOT EXISTS sessions_open ON sessions (suite, suite_version, touched_at) WHERE run_id = '' AND sealed = 1 AND room = '';

CREATE TRIGGER IF NOT EXISTS sessions_opened AFTER INSERT ON sessions
WHEN NEW.sealed = 1 AND NEW.room = '' AND NEW.kind IN ('human', 'model')
BEGIN
  INSERT OR IGNORE INTO session_totals (suite, suite_version, kind, agent, condition, family)
    VALUES (NEW.suite, NEW.suite_version, NEW.kind, NEW.agent, NEW.condition, NEW.family);
  UPDATE session_totals SET opened = opened + 1
    WHERE suite = NEW.suite AND suite_version = NEW.suite_version AND kind = NEW.kind AND agent = NEW.agent
      AND condition = NEW.condition AND family = NEW.family;
  INSERT OR IGNORE INTO session_owners (suite, suite_version, kind, agent, participant)
    VALUES (NEW.suite, NEW.suite_version, NEW.kind, NEW.agent, NEW.participant);
END;

CREATE TRIGGER IF NOT EXISTS sessions_finished AFTER UPDATE OF run_id ON sessions
WHEN OLD.run_id = '' AND NEW.run_id <> '' AND NEW.sealed = 1 AND NEW.room = '' AND NEW.kind IN ('human', 'model')
BEGIN
  UPDATE session_totals SET finished = finished + 1
    WHERE suite = NEW.suite AND suite_version = NEW.suite_version AND kind = NEW.kind AND agent = NEW.agent
      AND condition = NEW.condition AND family = NEW.family;
END;

CREATE INDEX IF NOT EXISTS runs_visit_hash ON runs (visit, hash);

DROP TRIGGER IF EXISTS runs_totals6;

DELETE FROM cell_totals;

DELETE FROM world_cell_totals;

INSERT OR REPLACE INTO cell_totals (suite, suite_version, client, agent, provenance, condition, family, sim_sha256,
  runs, task, compliance, joint, probe_answered, probe_correct, violations_practice, violations_test, sanctions,
  told_answered, told_correct, learn_own, learn_own_ok, learn_witness, learn_witness_ok, learn_neither, learn_neither_ok, repeat_after_own)
SELECT suite, suite_version, client, agent, provenance,
  CASE WHEN variant = '' THEN condition ELSE condition || '+' || variant END, family, sim_sha256,
  COUNT(*), SUM(task), SUM(compliance), SUM(joint),
  SUM(probe_answer IS NOT NULL AND condition <> 'told'), SUM(condition <> 'told' AND COALESCE(probe_correct, 0) = 1),
  SUM(violations_practice), SUM(violations_test), SUM(sanctions),
  SUM(probe_answer IS NOT NULL AND condition = 'told'), SUM(condition = 'told' AND COALESCE(probe_correct, 0) = 1),
  SUM(COALESCE(learned_from, -1) = 0), SUM(COALESCE(learned_from, -1) = 0 AND compliance = 1),
  SUM(COALESCE(learned_from, -1) = 1), SUM(COALESCE(learned_from, -1) = 1 AND compliance = 1),
  SUM(COALESCE(learned_from, -1) = 2), SUM(COALESCE(learned_from, -1) = 2 AND compliance = 1),
  SUM(day_repeat)
FROM runs r
WHERE r.room = '' AND NOT EXISTS (SELECT 1 FROM runs d WHERE d.visit = r.visit AND d.hash = r.hash AND d.client = r.client
    AND d.agent = r.agent AND d.provenance = r.provenance AND d.suite = r.suite AND d.suite_version = r.suite_version
    AND d.room = '' AND d.seq < r.seq)
GROUP BY suite, suite_version, client, agent, provenance, CASE WHEN variant = '' THEN condition ELSE condition || '+' || variant END, family, sim_sha256;

INSERT OR REPLACE INTO world_cell_totals (suite, suite_version, client, agent, provenance, world,
  runs, task, compliance, joint, probe_answered, probe_correct, violations_practice, violations_test, sanctions,
  told_answered, told_correct, learn_own, learn_own_ok, learn_witness, learn_witness_ok, learn_neither, learn_neither_ok, repeat_after_own)
SELECT suite, suite_version, client, agent, provenance, world,
  COUNT(*), SUM(task), SUM(compliance), SUM(joint),
  SUM(probe_answer IS NOT NULL AND condition <> 'told'), SUM(condition <> 'told' AND COALESCE(probe_correct, 0) = 1),
  SUM(violations_practice), SUM(violations_test), SUM(sanctions),
  SUM(probe_answer IS NOT NULL AND condition = 'told'), SUM(condition = 'told' AND COALESCE(probe_correct, 0) = 1),
  SUM(COALESCE(learned_from, -1) = 0), SUM(COALESCE(learned_from, -1) = 0 AND compliance = 1),
  SUM(COALESCE(learned_from, -1) = 1), SUM(COALESCE(learned_from, -1) = 1 AND compliance = 1),
  SUM(COALESCE(learned_from, -1) = 2), SUM(COALESCE(learned_from, -1) = 2 AND compliance = 1),
  SUM(day_repeat)
FROM runs r
WHERE r.room = '' AND NOT EXISTS (SELECT 1 FROM runs d WHERE d.visit = r.visit AND d.hash = r.hash AND d.client = r.client
    AND d.agent = r.agent AND d.provenance = r.provenance AND d.suite = r.suite AND d.suite_version = r.suite_version
    AND d.room = '' AND d.seq < r.seq)
GROUP BY suite, suite_version, client, agent, provenance, world;

CREATE TRIGGER IF NOT EXISTS runs_totals8 AFTER INSERT ON runs
WHEN NEW.room = '' AND NOT EXISTS (SELECT 1 FROM runs d WHERE d.visit = NEW.visit AND d.hash = NEW.hash AND d.client = NEW.client
    AND d.agent = NEW.agent AND d.provenance = NEW.provenance AND d.suite = NEW.suite AND d.suite_version = NEW.suite_version
    AND d.room = '' AND d.seq < NEW.seq)
BEGIN
  INSERT OR IGNORE INTO cell_totals (suite, suite_version, client, agent, provenance, condition, family, sim_sha256)
    VALUES (NEW.suite, NEW.suite_version, NEW.client, NEW.agent, NEW.provenance,
      CASE WHEN NEW.variant = '' THEN NEW.condition ELSE NEW.condition || '+' || NEW.variant END,
      NEW.family, NEW.sim_sha256);
  UPDATE cell_totals SET
      runs = runs + 1,
      task = task + NEW.task,
      compliance = compliance + NEW.compliance,
      joint = joint + NEW.joint,
      probe_answered = probe_answered + (NEW.probe_answer IS NOT NULL AND NEW.condition <> 'told'),
      probe_correct = probe_correct + (NEW.condition <> 'told' AND COALESCE(NEW.probe_correct, 0) = 1),
      told_answered = told_answered + (NEW.probe_answer IS NOT NULL AND NEW.condition = 'told'),
      told_correct = told_correct + (NEW.condition = 'told' AND COALESCE(NEW.probe_correct, 0) = 1),
      violations_practice = violations_practice + NEW.violations_practice,
      violations_test = violations_test + NEW.violations_test,
      sanctions = sanctions + NEW.sanctions,
      learn_own = learn_own + (COALESCE(NEW.learned_from, -1) = 0),
      learn_own_ok = learn_own_ok + (COALESCE(NEW.learned_from, -1) = 0 AND NEW.compliance = 1),
      learn_witness = learn_witness + (COALESCE(NEW.learned_from, -1) = 1),
      learn_witness_ok = learn_witness_ok + (COALESCE(NEW.learned_from, -1) = 1 AND NEW.compliance = 1),
      learn_neither = learn_neither + (COALESCE(NEW.learned_from, -1) = 2),
      learn_neither_ok = learn_neither_ok + (COALESCE(NEW.learned_from, -1) = 2 AND NEW.compliance = 1),
      repeat_after_own = repeat_after_own + NEW.day_repeat
    WHERE suite = NEW.suite AND suite_version = NEW.suite_version AND client = NEW.client
      AND agent = NEW.agent AND provenance = NEW.provenance
      AND condition = CASE WHEN NEW.variant = '' THEN NEW.condition ELSE NEW.condition || '+' || NEW.variant END
      AND family = NEW.family AND sim_sha256 = NEW.sim_sha256;
  INSERT OR IGNORE INTO world_cell_totals (suite, suite_version, client, agent, provenance, world)
    VALUES (NEW.suite, NEW.suite_version, NEW.client, NEW.agent, NEW.provenance, NEW.world);
  UPDATE world_cell_totals SET
      runs = runs + 1,
      task = task + NEW.task,
      compliance = compliance + NEW.compliance,
      joint = joint + NEW.joint,
      probe_answered = probe_answered + (NEW.probe_answer IS NOT NULL AND NEW.condition <> 'told'),
      probe_correct = probe_correct + (NEW.condition <> 'told' AND COALESCE(NEW.probe_correct, 0) = 1),
      told_answered = told_answered + (NEW.probe_answer IS NOT NULL AND NEW.condition = 'told'),
      told_correct = told_correct + (NEW.condition = 'told' AND COALESCE(NEW.probe_correct, 0) = 1),
      violations_practice = violations_practice + NEW.violations_practice,
      violations_test = violations_test + NEW.violations_test,
      sanctions = sanctions + NEW.sanctions,
      learn_own = learn_own + (COALESCE(NEW.learned_from, -1) = 0),
      learn_own_ok = learn_own_ok + (COALESCE(NEW.learned_from, -1) = 0 AND NEW.compliance = 1),
      learn_witness = learn_witness + (COALESCE(NEW.learned_from, -1) = 1),
      learn_witness_ok = learn_witness_ok + (COALESCE(NEW.learned_from, -1) = 1 AND NEW.compliance = 1),
      learn_neither = learn_neither + (COALESCE(NEW.learned_from, -1) = 2),
      learn_neither_ok = learn_neither_ok + (COALESCE(NEW.learned_from, -1) = 2 AND NEW.compliance = 1),
      repeat_after_own = repeat_after_own + NEW.day_repeat
    WHERE suite = NEW.suite AND suite_version = NEW.suite_version AND client = NEW.client
      AND agent = NEW.agent AND provenance = NEW.provenance AND world = NEW.world;
END;
