-- NormGym server schema, version 9: studies (issue 23).
--
-- A study is a researcher's design around sealed sessions: cells (norm or
-- family × condition) with a target each, a consent text, a platform, a
-- completion code or redirect, a time limit and exclusion rules declared
-- before the data. studies.design is the declared design (JSON, rules as
-- declared included), studies.rules the rules in force (JSON) and
-- studies.rules_n the number of the change that set them (0: as
-- declared). The salt keys the HMAC of the platform ids; the researcher
-- token is kept as its SHA-256.
--
-- A study's participant is one platform id (its HMAC under the study's
-- salt: unique per study, so that a second attempt finds the first) with
-- a study token (SHA-256 kept), a pseudonym that owns its sealed session,
-- the cell and sealed visit the quota assigned at entry, and its progress.
-- verdicts holds each rule's verdict once the visit is played, computed
-- under the rules of change verdicts_n; excluded is 1 if a rule excludes.
--
-- A study's sessions and runs are the study's: they carry the scope
-- 'study:CODE' in their room column. The scope that keeps a classroom's
-- runs the class's keeps a study's the study's: every trigger and query
-- that builds the public rows reads room = '' (schema 8), so a study's
-- sessions count in its own figures (the study dashboard), never in the
-- public human row.
--
-- A rule change is one insert into study_rule_changes, numbered and
-- counted (the participants entered then) inside the statement; a trigger
-- makes it the study's rules. Nothing needs a transaction (D1).

CREATE TABLE IF NOT EXISTS studies (
  code         TEXT    PRIMARY KEY,
  name         TEXT    NOT NULL,
  design       TEXT    NOT NULL,
  rules        TEXT    NOT NULL,
  rules_n      INTEGER NOT NULL DEFAULT 0,
  salt         TEXT    NOT NULL,
  token_sha256 TEXT    NOT NULL,
  creator      TEXT    NOT NULL,
  created_at   INTEGER NOT NULL -- unix milliseconds
);

CREATE TABLE IF NOT EXISTS study_rule_changes (
  study        TEXT    NOT NULL,
  n            INTEGER NOT NULL, -- 1, 2, … per study
  at           INTEGER NOT NULL,
  rules        TEXT    NOT NULL,
  note         TEXT    NOT NULL,
  participants INTEGER NOT NULL,
  PRIMARY KEY (study, n)
);

CREATE TRIGGER IF NOT EXISTS study_rule_changes_apply AFTER INSERT ON study_rule_changes
BEGIN
  UPDATE studies SET rules = NEW.rules, rules_n = NEW.n WHERE code = NEW.study;
END;

CREATE TABLE IF NOT EXISTS study_participants (
  id              TEXT    PRIMARY KEY,
  study           TEXT    NOT NULL,
  pid_sha256      TEXT    NOT NULL, -- HMAC-SHA256(salt, platform id), hex
  ids             TEXT    NOT NULL DEFAULT '{}', -- the other platform ids, HMAC'd alike
  token_sha256    TEXT    NOT NULL,
  pseudonym       TEXT    NOT NULL,
  cell            TEXT    NOT NULL,
  visit           TEXT    NOT NULL,
  entered_at      INTEGER NOT NULL,
  consented_at    INTEGER NOT NULL DEFAULT 0,
  consent_version TEXT    NOT NULL DEFAULT '',
  check_answers   TEXT    NOT NULL DEFAULT '',
  check_correct   INTEGER NOT NULL DEFAULT -1,
  checked_at      INTEGER NOT NULL DEFAULT 0,
  finished_at     INTEGER NOT NULL DEFAULT 0,
  verdicts        TEXT    NOT NULL DEFAULT '',
  verdicts_n      INTEGER NOT NULL DEFAULT -1,
  excluded        INTEGER NOT NULL DEFAULT 0 CHECK (excluded IN (0, 1))
);

CREATE UNIQUE INDEX IF NOT EXISTS study_participants_pid ON study_participants (study, pid_sha256);

CREATE UNIQUE INDEX IF NOT EXISTS study_participants_token ON study_participants (token_sha256);

CREATE INDEX IF NOT EXISTS study_participants_entered ON study_participants (study, entered_at);
