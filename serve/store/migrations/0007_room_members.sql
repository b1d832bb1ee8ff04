-- NormGym server schema, version 7: classroom nicknames. A student joins a
-- room with a nickname (serve/api/nickname), which the teacher's dashboard
-- and the class's views show instead of the pseudonym; nickname_key (the
-- nickname without case, spaces or '-') is unique in the room. Nicknames
-- stay with the room: the research export and runs never carry them.
-- (Version 6 is the sealed sessions' schema.)

CREATE TABLE IF NOT EXISTS room_members (
  room         TEXT    NOT NULL,
  participant  TEXT    NOT NULL,
  nickname     TEXT    NOT NULL,
  nickname_key TEXT    NOT NULL,
  created_at   INTEGER NOT NULL, -- unix milliseconds
  PRIMARY KEY (room, participant)
);

CREATE UNIQUE INDEX IF NOT EXISTS room_members_nickname ON room_members (room, nickname_key);
