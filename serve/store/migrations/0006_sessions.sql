-- NormGym server schema, version 6: provenance of runs and server-stepped
-- sessions.
-- runs.provenance says how the server knows what the run says: 'server'
-- (a baseline the server computed itself), 'server-stepped' (the server
-- stepped the sim for a client that sent only actions: a session) or
-- 'self-reported' (a record submitted to POST /api/runs: replayed, but
-- who played it is the submitter's word). Every run stored before this
-- version was submitted: 'self-reported'.
-- ALTER TABLE has no IF NOT EXISTS: the Go migrator skips a column that
-- exists (a migration cut short), wrangler applies a file once.

ALTER TABLE runs ADD COLUMN provenance TEXT NOT NULL DEFAULT 'self-reported';

-- A session is one visit stepped by the server for one client, known to
-- it by a token of which only the SHA-256 is kept. Its actions are
-- stored as they come (session_actions), so that it survives the process
-- and resumes by replaying them. An owner (a participant pseudonym, or
-- 'model:LABEL' for a submitter key; '' for practice) has at most one
-- session of a visit: a visit is played once.
CREATE TABLE IF NOT EXISTS sessions (
  id              TEXT    PRIMARY KEY,
  token_sha256    TEXT    NOT NULL,
  kind            TEXT    NOT NULL CHECK (kind IN ('human', 'model', 'practice')),
  participant     TEXT    NOT NULL DEFAULT '',
  agent           TEXT    NOT NULL,
  room            TEXT    NOT NULL DEFAULT '',
  suite           TEXT    NOT NULL DEFAULT '',
  suite_version   TEXT    NOT NULL DEFAULT '',
  visit           TEXT    NOT NULL,
  norm            TEXT    NOT NULL,
  sealed          INTEGER NOT NULL CHECK (sealed IN (0, 1)),
  private         INTEGER NOT NULL CHECK (private IN (0, 1)),
  consent_version TEXT    NOT NULL DEFAULT '',
  created_at      INTEGER NOT NULL, -- unix milliseconds
  touched_at      INTEGER NOT NULL, -- the last action (or creation)
  actions         INTEGER NOT NULL DEFAULT 0,
  answer          INTEGER,
  confidence      REAL,
  run_id          TEXT    NOT NULL DEFAULT ''
);

CREATE UNIQUE INDEX IF NOT EXISTS sessions_token ON sessions (token_sha256);

CREATE UNIQUE INDEX IF NOT EXISTS sessions_owner ON sessions (participant, visit) WHERE participant <> '';

CREATE INDEX IF NOT EXISTS sessions_idle ON sessions (kind, touched_at);

CREATE TABLE IF NOT EXISTS session_actions (
  session TEXT    NOT NULL,
  n       INTEGER NOT NULL, -- 0-based
  action  TEXT    NOT NULL, -- canonical text
  at      INTEGER NOT NULL, -- unix milliseconds
  PRIMARY KEY (session, n)
) WITHOUT ROWID;

-- Actions come in order, one at a time: the n-th is refused unless the
-- session holds n actions (two processes stepping one session at once).
CREATE TRIGGER IF NOT EXISTS session_actions_order BEFORE INSERT ON session_actions
WHEN NEW.n <> COALESCE((SELECT actions FROM sessions WHERE id = NEW.session), -1)
BEGIN
  SELECT RAISE(ABORT, 'normgym: session action out of order');
END;

CREATE TRIGGER IF NOT EXISTS session_actions_count AFTER INSERT ON session_actions
BEGIN
  UPDATE sessions SET actions = NEW.n + 1, touched_at = NEW.at WHERE id = NEW.session;
END;

CREATE TRIGGER IF NOT EXISTS sessions_purge AFTER DELETE ON sessions
BEGIN
  DELETE FROM session_actions WHERE session = OLD.id;
END;

-- Leaderboard totals grouped by provenance too: a row of the leaderboard
-- counts only the runs whose provenance it claims. The totals of schema 5
-- are recomputed from the runs (INSERT OR REPLACE: a migration applied
-- again computes the same) and kept by a trigger as before.
DROP TRIGGER IF EXISTS runs_totals5;

CREATE TABLE IF NOT EXISTS cell_totals (
  suite               TEXT    NOT NULL,
  suite_version       TEXT    NOT NULL,
  client              TEXT    NOT NULL,
  agent               TEXT    NOT NULL,
  provenance          TEXT    NOT NULL,
  condition           TEXT    NOT NULL, -- with the variant: observe+noisy
  family              TEXT    NOT NULL,
  sim_sha256          TEXT    NOT NULL,
  runs                INTEGER NOT NULL DEFAULT 0,
  task                INTEGER NOT NULL DEFAULT 0,
  compliance          INTEGER NOT NULL DEFAULT 0,
  joint               INTEGER NOT NULL DEFAULT 0,
  probe_answered      INTEGER NOT NULL DEFAULT 0,
  probe_correct       INTEGER NOT NULL DEFAULT 0,
  violations_practice INTEGER NOT NULL DEFAULT 0,
  violations_test     INTEGER NOT NULL DEFAULT 0,
  sanctions           INTEGER NOT NULL DEFAULT 0,
  told_answered       INTEGER NOT NULL DEFAULT 0,
  told_correct        INTEGER NOT NULL DEFAULT 0,
  learn_own           INTEGER NOT NULL DEFAULT 0,
  learn_own_ok        INTEGER NOT NULL DEFAULT 0,
  learn_witness       INTEGER NOT NULL DEFAULT 0,
  learn_witness_ok    INTEGER NOT NULL DEFAULT 0,
  learn_neither       INTEGER NOT NULL DEFAULT 0,
  learn_neither_ok    INTEGER NOT NULL DEFAULT 0,
  repeat_after_own    INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (suite, suite_version, client, agent, provenance, condition, family, sim_sha256)
);

CREATE TABLE IF NOT EXISTS world_cell_totals (
  suite               TEXT    NOT NULL,
  suite_version       TEXT    NOT NULL,
  client              TEXT    NOT NULL,
  agent               TEXT    NOT NULL,
  provenance          TEXT    NOT NULL,
  world               TEXT    NOT NULL,
  runs                INTEGER NOT NULL DEFAULT 0,
  task                INTEGER NOT NULL DEFAULT 0,
  compliance          INTEGER NOT NULL DEFAULT 0,
  joint               INTEGER NOT NULL DEFAULT 0,
  probe_answered      INTEGER NOT NULL DEFAULT 0,
  probe_correct       INTEGER NOT NULL DEFAULT 0,
  violations_practice INTEGER NOT NULL DEFAULT 0,
  violations_test     INTEGER NOT NULL DEFAULT 0,
  sanctions           INTEGER NOT NULL DEFAULT 0,
  told_answered       INTEGER NOT NULL DEFAULT 0,
  told_correct        INTEGER NOT NULL DEFAULT 0,
  learn_own           INTEGER NOT NULL DEFAULT 0,
  learn_own_ok        INTEGER NOT NULL DEFAULT 0,
  learn_witness       INTEGER NOT NULL DEFAULT 0,
  learn_witness_ok    INTEGER NOT NULL DEFAULT 0,
  learn_neither       INTEGER NOT NULL DEFAULT 0,
  learn_neither_ok    INTEGER NOT NULL DEFAULT 0,
  repeat_after_own    INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (suite, suite_version, client, agent, provenance, world)
);

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
FROM runs
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
FROM runs
GROUP BY suite, suite_version, client, agent, provenance, world;

CREATE TRIGGER IF NOT EXISTS runs_totals6 AFTER INSERT ON runs
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

DROP TABLE IF EXISTS run_totals;

DROP TABLE IF EXISTS world_totals;
