-- NormGym server schema, version 3: a person meets each norm once. A human
-- run whose participant already has a run of the same norm in another
-- visit is refused inside the insert itself, so two submissions racing
-- past the server's own check cannot both be stored. The message is
-- matched by the store (ErrNormPlayed).

CREATE TRIGGER IF NOT EXISTS runs_norm_once BEFORE INSERT ON runs
WHEN NEW.client = 'human' AND NEW.participant <> '' AND EXISTS (
  SELECT 1 FROM runs WHERE client = 'human' AND participant = NEW.participant AND norm = NEW.norm AND visit <> NEW.visit)
BEGIN
  SELECT RAISE(ABORT, 'normgym: norm already played');
END;
