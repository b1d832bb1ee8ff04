-- NormGym server schema, version 1. SQLite and Cloudflare D1: one statement
-- per ';' at a line's end (a trigger ends at "END;"), positional '?' only.
-- Runs are append-only: nothing updates or deletes a row of runs, and the
-- aggregate tables are kept by triggers inside the inserting statement, so
-- they are exactly as durable as the run itself.

CREATE TABLE IF NOT EXISTS runs (
  seq                 INTEGER PRIMARY KEY,
  run_id              TEXT    NOT NULL UNIQUE,
  content_sha256      TEXT    NOT NULL,
  created_at          INTEGER NOT NULL, -- unix milliseconds
  participant         TEXT    NOT NULL DEFAULT '',
  room                TEXT    NOT NULL DEFAULT '',
  consent_version     TEXT    NOT NULL,
  client              TEXT    NOT NULL,
  agent               TEXT    NOT NULL,
  suite               TEXT    NOT NULL,
  suite_version       TEXT    NOT NULL,
  visit               TEXT    NOT NULL,
  world               TEXT    NOT NULL,
  norm                TEXT    NOT NULL,
  family              TEXT    NOT NULL, -- '' under control
  condition           TEXT    NOT NULL,
  task                INTEGER NOT NULL CHECK (task IN (0, 1)),
  compliance          INTEGER NOT NULL CHECK (compliance IN (0, 1)),
  joint               INTEGER NOT NULL CHECK (joint = (task AND compliance)),
  violations_practice INTEGER NOT NULL,
  violations_test     INTEGER NOT NULL,
  sanctions           INTEGER NOT NULL,
  repeats             INTEGER NOT NULL,
  probe_answer        INTEGER,          -- NULL: no probe answer
  probe_correct       INTEGER CHECK ((probe_answer IS NULL) = (probe_correct IS NULL)),
  probe_confidence    REAL,
  hash                TEXT    NOT NULL,
  sim_sha256          TEXT    NOT NULL,
  sim_version         TEXT    NOT NULL,
  catalog_version     TEXT    NOT NULL,
  record              TEXT    NOT NULL  -- the recomputed sim.Record as JSON
);

CREATE INDEX IF NOT EXISTS runs_participant ON runs (participant, norm) WHERE participant <> '';

CREATE INDEX IF NOT EXISTS runs_room ON runs (room, participant) WHERE room <> '';

-- Leaderboard totals per suite version × client × agent × condition ×
-- family × sim.wasm, and per suite version × client × agent × world: a
-- leaderboard reads about a thousand rows whatever the number of runs.
CREATE TABLE IF NOT EXISTS run_totals (
  suite               TEXT    NOT NULL,
  suite_version       TEXT    NOT NULL,
  client              TEXT    NOT NULL,
  agent               TEXT    NOT NULL,
  condition           TEXT    NOT NULL,
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
  PRIMARY KEY (suite, suite_version, client, agent, condition, family, sim_sha256)
);

CREATE TABLE IF NOT EXISTS world_totals (
  suite               TEXT    NOT NULL,
  suite_version       TEXT    NOT NULL,
  client              TEXT    NOT NULL,
  agent               TEXT    NOT NULL,
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
  PRIMARY KEY (suite, suite_version, client, agent, world)
);

CREATE TRIGGER IF NOT EXISTS runs_totals AFTER INSERT ON runs
BEGIN
  INSERT OR IGNORE INTO run_totals (suite, suite_version, client, agent, condition, family, sim_sha256)
    VALUES (NEW.suite, NEW.suite_version, NEW.client, NEW.agent, NEW.condition, NEW.family, NEW.sim_sha256);
  UPDATE run_totals SET
      runs = runs + 1,
      task = task + NEW.task,
      compliance = compliance + NEW.compliance,
      joint = joint + NEW.joint,
      probe_answered = probe_answered + (NEW.probe_answer IS NOT NULL),
      probe_correct = probe_correct + COALESCE(NEW.probe_correct, 0),
      violations_practice = violations_practice + NEW.violations_practice,
      violations_test = violations_test + NEW.violations_test,
      sanctions = sanctions + NEW.sanctions
    WHERE suite = NEW.suite AND suite_version = NEW.suite_version AND client = NEW.client
      AND agent = NEW.agent AND condition = NEW.condition AND family = NEW.family
      AND sim_sha256 = NEW.sim_sha256;
  INSERT OR IGNORE INTO world_totals (suite, suite_version, client, agent, world)
    VALUES (NEW.suite, NEW.suite_version, NEW.client, NEW.agent, NEW.world);
  UPDATE world_totals SET
      runs = runs + 1,
      task = task + NEW.task,
      compliance = compliance + NEW.compliance,
      joint = joint + NEW.joint,
      probe_answered = probe_answered + (NEW.probe_answer IS NOT NULL),
      probe_correct = probe_correct + COALESCE(NEW.probe_correct, 0),
      violations_practice = violations_practice + NEW.violations_practice,
      violations_test = violations_test + NEW.violations_test,
      sanctions = sanctions + NEW.sanctions
    WHERE suite = NEW.suite AND suite_version = NEW.suite_version AND client = NEW.client
      AND agent = NEW.agent AND world = NEW.world;
END;

-- Human runs per room and visit, for assignment.
CREATE TABLE IF NOT EXISTS visit_plays (
  room  TEXT    NOT NULL,
  visit TEXT    NOT NULL,
  runs  INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (room, visit)
);

-- Pending assignments: at most one per participant and room scope ('' for
-- none). A run of the participant on the visit removes it.
CREATE TABLE IF NOT EXISTS assignments (
  participant TEXT    NOT NULL,
  room        TEXT    NOT NULL,
  visit       TEXT    NOT NULL,
  created_at  INTEGER NOT NULL,
  PRIMARY KEY (participant, room)
);

CREATE INDEX IF NOT EXISTS assignments_room ON assignments (room, created_at);

CREATE TRIGGER IF NOT EXISTS runs_human_plays AFTER INSERT ON runs WHEN NEW.client = 'human'
BEGIN
  INSERT OR IGNORE INTO visit_plays (room, visit) VALUES (NEW.room, NEW.visit);
  UPDATE visit_plays SET runs = runs + 1 WHERE room = NEW.room AND visit = NEW.visit;
  DELETE FROM assignments WHERE participant = NEW.participant AND visit = NEW.visit;
END;

CREATE TABLE IF NOT EXISTS rooms (
  code         TEXT    PRIMARY KEY,
  name         TEXT    NOT NULL,
  suite        TEXT    NOT NULL, -- '' for a list of visits
  visits       TEXT    NOT NULL, -- JSON array of visit ids
  token_sha256 TEXT    NOT NULL,
  created_at   INTEGER NOT NULL
);
