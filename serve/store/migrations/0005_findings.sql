-- NormGym server schema, version 5: the totals carry the benchmark's
-- findings and keep told probes and sanction variants apart, so that the
-- leaderboard shows exactly what report.Summarize computes from records.
-- runs.learned_from says what the newcomer could learn from on the practice
-- day (report's Findings): 0 its own sanction, 1 only others' sanctions,
-- 2 neither; NULL under control. runs.day_repeat is 1 when, sanctioned on
-- the practice day, it broke the norm again later that day. runs.variant is
-- the sanction variant ('' for none); totals group by "condition+variant".
-- ALTER TABLE has no IF NOT EXISTS: the Go migrator skips a column that
-- exists (a migration cut short), wrangler applies a file once.

ALTER TABLE runs ADD COLUMN variant TEXT NOT NULL DEFAULT '';

ALTER TABLE runs ADD COLUMN learned_from INTEGER CHECK (learned_from IN (0, 1, 2));

ALTER TABLE runs ADD COLUMN day_repeat INTEGER NOT NULL DEFAULT 0 CHECK (day_repeat IN (0, 1));

ALTER TABLE run_totals ADD COLUMN told_answered INTEGER NOT NULL DEFAULT 0;

ALTER TABLE run_totals ADD COLUMN told_correct INTEGER NOT NULL DEFAULT 0;

ALTER TABLE run_totals ADD COLUMN learn_own INTEGER NOT NULL DEFAULT 0;

ALTER TABLE run_totals ADD COLUMN learn_own_ok INTEGER NOT NULL DEFAULT 0;

ALTER TABLE run_totals ADD COLUMN learn_witness INTEGER NOT NULL DEFAULT 0;

ALTER TABLE run_totals ADD COLUMN learn_witness_ok INTEGER NOT NULL DEFAULT 0;

ALTER TABLE run_totals ADD COLUMN learn_neither INTEGER NOT NULL DEFAULT 0;

ALTER TABLE run_totals ADD COLUMN learn_neither_ok INTEGER NOT NULL DEFAULT 0;

ALTER TABLE run_totals ADD COLUMN repeat_after_own INTEGER NOT NULL DEFAULT 0;

ALTER TABLE world_totals ADD COLUMN told_answered INTEGER NOT NULL DEFAULT 0;

ALTER TABLE world_totals ADD COLUMN told_correct INTEGER NOT NULL DEFAULT 0;

ALTER TABLE world_totals ADD COLUMN learn_own INTEGER NOT NULL DEFAULT 0;

ALTER TABLE world_totals ADD COLUMN learn_own_ok INTEGER NOT NULL DEFAULT 0;

ALTER TABLE world_totals ADD COLUMN learn_witness INTEGER NOT NULL DEFAULT 0;

ALTER TABLE world_totals ADD COLUMN learn_witness_ok INTEGER NOT NULL DEFAULT 0;

ALTER TABLE world_totals ADD COLUMN learn_neither INTEGER NOT NULL DEFAULT 0;

ALTER TABLE world_totals ADD COLUMN learn_neither_ok INTEGER NOT NULL DEFAULT 0;

ALTER TABLE world_totals ADD COLUMN repeat_after_own INTEGER NOT NULL DEFAULT 0;

DROP TRIGGER IF EXISTS runs_totals;

CREATE TRIGGER IF NOT EXISTS runs_totals5 AFTER INSERT ON runs
BEGIN
  INSERT OR IGNORE INTO run_totals (suite, suite_version, client, agent, condition, family, sim_sha256)
    VALUES (NEW.suite, NEW.suite_version, NEW.client, NEW.agent,
      CASE WHEN NEW.variant = '' THEN NEW.condition ELSE NEW.condition || '+' || NEW.variant END,
      NEW.family, NEW.sim_sha256);
  UPDATE run_totals SET
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
      AND agent = NEW.agent
      AND condition = CASE WHEN NEW.variant = '' THEN NEW.condition ELSE NEW.condition || '+' || NEW.variant END
      AND family = NEW.family AND sim_sha256 = NEW.sim_sha256;
  INSERT OR IGNORE INTO world_totals (suite, suite_version, client, agent, world)
    VALUES (NEW.suite, NEW.suite_version, NEW.client, NEW.agent, NEW.world);
  UPDATE world_totals SET
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
      AND agent = NEW.agent AND world = NEW.world;
END;
