BEGIN TRANSACTION;
CREATE TABLE live_tables (
    code       TEXT PRIMARY KEY,
    watch      TEXT NOT NULL UNIQUE,
    host       TEXT NOT NULL,
    state      TEXT NOT NULL,
    closed     TEXT,
    created_at REAL NOT NULL,
    touched_at REAL NOT NULL
);
INSERT INTO "live_tables" VALUES('pzpcqvFEpur6kqvEp_M_Yw','IFk0ZKO8Uo3l3tUYDou1Sg','z3M6quTX1B3YVH10k1KWHg.hvYgW1dmZeu6KjzP','{"rules": {"players": 2, "hand_size": null, "war_down": 1, "shortage": "lose", "battle_limit": 500, "limit_outcome": "draw", "time_limit_s": null, "low_wins": false, "gather": "winner_first"}, "best_of": 1, "clock_s": 10, "seats": [{"kind": "person", "name": "Mia", "holder": "z3M6quTX1B3YVH10k1KWHg.hvYgW1dmZeu6KjzP"}, {"kind": "person", "name": "", "holder": null}], "round_id": "tT2AspcKFMcI24U_WdWAiw", "match_id": null}',NULL,1.79624753883140778542e+09,1.79624753883140778542e+09);
CREATE TABLE matches (
    id         TEXT PRIMARY KEY,
    player     TEXT,
    best_of    INTEGER NOT NULL,
    rules      TEXT    NOT NULL,
    seed       INTEGER NOT NULL DEFAULT 0,
    winners    TEXT    NOT NULL DEFAULT '[]',
    winner     INTEGER,
    created_at REAL    NOT NULL,
    updated_at REAL    NOT NULL
, seats TEXT);
INSERT INTO "matches" VALUES('uDrP0zGNoMd9mxcqL0udxQ','z3M6quTX1B3YVH10k1KWHg.hvYgW1dmZeu6KjzP',3,'{"players": 2, "hand_size": null, "war_down": 1, "shortage": "lose", "battle_limit": 500, "limit_outcome": "draw", "time_limit_s": null, "low_wins": false, "gather": "winner_first"}',5,'[0]',NULL,1.79624753880173516277e+09,1.79624753882146811481e+09,'[{"kind": "person", "name": ""}, {"kind": "computer", "name": ""}, {"kind": "computer", "name": ""}, {"kind": "computer", "name": ""}]');
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value BLOB NOT NULL
);
CREATE TABLE people (
    player TEXT    NOT NULL,
    key    TEXT    NOT NULL,
    name   TEXT    NOT NULL,
    won    INTEGER NOT NULL DEFAULT 0,
    lost   INTEGER NOT NULL DEFAULT 0,
    drawn  INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (player, key)
);
INSERT INTO "people" VALUES('z3M6quTX1B3YVH10k1KWHg.hvYgW1dmZeu6KjzP','you','You',1,0,1);
CREATE TABLE players (
    id          TEXT PRIMARY KEY,
    house_rules TEXT,
    won         INTEGER NOT NULL DEFAULT 0,
    lost        INTEGER NOT NULL DEFAULT 0,
    drawn       INTEGER NOT NULL DEFAULT 0,
    updated_at  REAL    NOT NULL,
    matches_won  INTEGER NOT NULL DEFAULT 0,
    matches_lost INTEGER NOT NULL DEFAULT 0,
    best_of      INTEGER NOT NULL DEFAULT 1
, seats TEXT);
INSERT INTO "players" VALUES('z3M6quTX1B3YVH10k1KWHg.hvYgW1dmZeu6KjzP','{"players": 2, "hand_size": null, "war_down": 3, "shortage": "lose", "battle_limit": 500, "limit_outcome": "draw", "time_limit_s": null, "low_wins": false, "gather": "winner_first"}',1,0,1,1.79624753882146811481e+09,0,0,3,'[{"kind": "person", "name": ""}, {"kind": "computer", "name": ""}, {"kind": "computer", "name": ""}, {"kind": "computer", "name": ""}]');
CREATE TABLE rounds (
    id         TEXT PRIMARY KEY,
    player     TEXT,
    rules      TEXT    NOT NULL,
    seed       INTEGER NOT NULL,
    deal       TEXT,
    battles    INTEGER NOT NULL DEFAULT 0,
    time_up    INTEGER NOT NULL DEFAULT 0,
    winner     INTEGER,
    reason     TEXT,
    created_at REAL    NOT NULL,
    updated_at REAL    NOT NULL,
    snapshot   TEXT
, match_id TEXT, cap INTEGER, seats TEXT, live_table TEXT);
INSERT INTO "rounds" VALUES('ieH4dH7iq9yCtQqywImsjg','z3M6quTX1B3YVH10k1KWHg.hvYgW1dmZeu6KjzP','{"players": 2, "hand_size": null, "war_down": 1, "shortage": "lose", "battle_limit": 500, "limit_outcome": "draw", "time_limit_s": null, "low_wins": false, "gather": "winner_first"}',7,NULL,12,0,NULL,NULL,1.79624753780424213406e+09,1.79624753781026148791e+09,'{"rules": {"players": 2, "hand_size": null, "war_down": 1, "shortage": "lose", "battle_limit": 500, "limit_outcome": "draw", "time_limit_s": null, "low_wins": false, "gather": "winner_first"}, "seed": 7, "deal": null, "battles": 12, "time_up": false, "cap": 100000, "piles": [[18, 1, 42, 46, 27, 2, 32, 37, 6, 4, 41, 9, 31, 10, 40, 11, 16, 8, 22, 12], [35, 36, 15, 26, 5, 13, 47, 23, 34, 3, 25, 20, 39, 17, 19, 0, 50, 14, 44, 38, 45, 33, 29, 24, 43, 21, 28, 51, 48, 30, 49, 7]], "table": [], "wars": 1, "out_at": [null, null], "outcome": null, "last_battle": {"number": 12, "steps": [{"up": ["9H", "9C"], "down": [0, 0], "short": []}, {"up": ["3S", "AC"], "down": [1, 1], "short": []}], "winner": 1, "taken": 6, "wars": 1, "counts": [20, 32], "outcome": null}, "rng": null, "watch": null}',NULL,100000,'[{"kind": "person", "name": "You"}, {"kind": "computer", "name": "Computer"}]',NULL);
INSERT INTO "rounds" VALUES('LtXB-TQK4No-yKpTIh0VaQ','z3M6quTX1B3YVH10k1KWHg.hvYgW1dmZeu6KjzP','{"players": 2, "hand_size": null, "war_down": 1, "shortage": "lose", "battle_limit": 500, "limit_outcome": "draw", "time_limit_s": null, "low_wins": false, "gather": "winner_first"}',11,NULL,500,0,NULL,'battle_limit',1.79624753781571483606e+09,1.79624753879045200347e+09,'{"rules": {"players": 2, "hand_size": null, "war_down": 1, "shortage": "lose", "battle_limit": 500, "limit_outcome": "draw", "time_limit_s": null, "low_wins": false, "gather": "winner_first"}, "seed": 11, "deal": null, "battles": 500, "time_up": false, "cap": 100000, "piles": [[27, 0, 45, 41, 39, 24, 19, 14, 33, 21, 34, 25, 37, 15, 30, 7, 31, 13, 49, 26, 22, 9, 51, 40, 43, 4, 36, 3, 47, 28, 10, 5, 48, 46, 44, 42, 35, 18, 23, 17, 12, 6, 50, 29, 20, 16], [11, 1, 38, 2, 32, 8]], "table": [], "wars": 37, "out_at": [null, null], "outcome": {"winner": null, "reason": "battle_limit"}, "last_battle": {"number": 500, "steps": [{"up": ["4C", "TC"], "down": [0, 0], "short": []}], "winner": 1, "taken": 2, "wars": 0, "counts": [46, 6], "outcome": {"winner": null, "reason": "battle_limit"}}, "rng": null, "watch": null}',NULL,100000,'[{"kind": "person", "name": "You"}, {"kind": "computer", "name": "Computer"}]',NULL);
INSERT INTO "rounds" VALUES('P5o2vljkMMWhEgAhHFVNFQ','z3M6quTX1B3YVH10k1KWHg.hvYgW1dmZeu6KjzP','{"players": 2, "hand_size": null, "war_down": 1, "shortage": "lose", "battle_limit": 500, "limit_outcome": "draw", "time_limit_s": null, "low_wins": false, "gather": "winner_first"}',909350399492954,NULL,326,0,0,'all_cards',1.79624753880228686326e+09,1.79624753882146811481e+09,'{"rules": {"players": 2, "hand_size": null, "war_down": 1, "shortage": "lose", "battle_limit": 500, "limit_outcome": "draw", "time_limit_s": null, "low_wins": false, "gather": "winner_first"}, "seed": 909350399492954, "deal": null, "battles": 326, "time_up": false, "cap": 100000, "piles": [[48, 14, 47, 36, 50, 29, 11, 6, 35, 23, 2, 51, 30, 1, 37, 16, 41, 13, 46, 40, 20, 33, 34, 25, 17, 15, 7, 43, 24, 4, 9, 3, 39, 21, 26, 38, 28, 8, 44, 5, 31, 10, 49, 19, 32, 0, 27, 22, 45, 18, 42, 12], []], "table": [], "wars": 24, "out_at": [null, 326], "outcome": {"winner": 0, "reason": "all_cards"}, "last_battle": {"number": 326, "steps": [{"up": ["QH", "5C"], "down": [0, 0], "short": []}], "winner": 0, "taken": 2, "wars": 0, "counts": [52, 0], "outcome": {"winner": 0, "reason": "all_cards"}}, "rng": null, "watch": null}','uDrP0zGNoMd9mxcqL0udxQ',100000,'[{"kind": "person", "name": "You"}, {"kind": "computer", "name": "Computer"}]',NULL);
INSERT INTO "rounds" VALUES('tT2AspcKFMcI24U_WdWAiw','z3M6quTX1B3YVH10k1KWHg.hvYgW1dmZeu6KjzP','{"players": 2, "hand_size": null, "war_down": 1, "shortage": "lose", "battle_limit": 500, "limit_outcome": "draw", "time_limit_s": null, "low_wins": false, "gather": "winner_first"}',5586809726932889,NULL,0,0,NULL,NULL,1.79624753883091282848e+09,1.79624753883091282848e+09,'{"rules": {"players": 2, "hand_size": null, "war_down": 1, "shortage": "lose", "battle_limit": 500, "limit_outcome": "draw", "time_limit_s": null, "low_wins": false, "gather": "winner_first"}, "seed": 5586809726932889, "deal": null, "battles": 0, "time_up": false, "cap": 100000, "piles": [[15, 46, 35, 16, 21, 34, 45, 29, 33, 50, 9, 5, 7, 17, 1, 10, 47, 23, 18, 6, 0, 22, 26, 38, 43, 20], [4, 48, 28, 14, 37, 51, 11, 39, 25, 32, 42, 8, 24, 2, 12, 49, 36, 13, 27, 44, 3, 31, 40, 30, 41, 19]], "table": [], "wars": 0, "out_at": [null, null], "outcome": null, "last_battle": null, "rng": null, "watch": null}',NULL,100000,'[{"kind": "person", "name": "Mia"}, {"kind": "person", "name": ""}]','pzpcqvFEpur6kqvEp_M_Yw');
CREATE INDEX rounds_by_player ON rounds (player, created_at);
CREATE INDEX rounds_by_age ON rounds (updated_at);
CREATE INDEX matches_by_age ON matches (updated_at);
CREATE INDEX matches_by_player ON matches (player, created_at);
CREATE INDEX players_by_age ON players (updated_at);
CREATE INDEX live_tables_by_host ON live_tables (host, closed);
CREATE INDEX live_tables_by_age ON live_tables (touched_at);
CREATE INDEX rounds_by_live_table ON rounds (live_table);
COMMIT;
