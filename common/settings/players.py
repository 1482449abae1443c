"""What players meet around the tables: Web Push, the daily digest and its mail, chat, ratings
and quick play."""

from common.settings.variable import Variable

# Descriptions shared by variables that make one row of the table.
_QUICKPLAY_WINDOW = "100, 50: the rating distance within which searchers are matched, and how much it widens each second a searcher waits"

VARIABLES: tuple[Variable, ...] = (
    Variable(
        "TAVOLA_PUSH_VAPID_PRIVATE_KEY",
        "str",
        "",
        "gateway",
        "unset: no Web Push; the VAPID private key (base64url P-256 scalar) the gateway signs its pushes with, telling players away from a table that it is their turn; `python -m gateway.push` prints a fresh pair",
    ),
    Variable(
        "TAVOLA_PUSH_VAPID_SUBJECT",
        "str",
        "mailto:operator@tavola.invalid",
        "gateway",
        "`mailto:operator@tavola.invalid`: the contact push services see in each push (VAPID `sub`): set the operator's own",
    ),
    Variable(
        "TAVOLA_PUSH_ALLOW_PRIVATE",
        "bool",
        False,
        "gateway",
        "false; `true` (development and tests only) accepts push endpoints on http and on local or private addresses, which are otherwise refused: the gateway would post where a client points it",
    ),
    Variable(
        "TAVOLA_DIGEST_SENDER",
        "str",
        "file",
        "gateway",
        "`file`: the daily digest emails go as files into `TAVOLA_DIGEST_DIR` (development); `smtp`: through `TAVOLA_SMTP_HOST`",
    ),
    Variable(
        "TAVOLA_DIGEST_DIR",
        "str",
        ".run/digests",
        "gateway",
        "`.run/digests` (git-ignored): where the `file` sender writes each mail (.eml)",
    ),
    Variable("TAVOLA_DIGEST_FROM", "str", "tavola <tables@tavola.invalid>", "gateway", "the digest's From address"),
    Variable(
        "TAVOLA_DIGEST_CHECK_SECONDS",
        "float",
        600.0,
        "gateway",
        "600: how often one gateway looks for opted-in players with tables waiting; 0 turns digests off",
        minimum=0,
    ),
    Variable(
        "TAVOLA_DIGEST_EVERY_SECONDS",
        "float",
        86400.0,
        "gateway",
        "86400: a player gets at most one digest in this long",
        minimum=1,
    ),
    Variable(
        "TAVOLA_SITE_URL",
        "str",
        "",
        "gateway",
        "unset: the digest's links are relative; the web client's address, e.g. `https://tables.example`",
    ),
    Variable("TAVOLA_SMTP_HOST", "str", "", "gateway", "unset; the SMTP server the `smtp` digest sender uses"),
    Variable("TAVOLA_SMTP_PORT", "port", 587, "gateway", "587: its port"),
    Variable(
        "TAVOLA_SMTP_USER", "str", "", "gateway", "unset: no login; else the SMTP login, with `TAVOLA_SMTP_PASSWORD`"
    ),
    Variable("TAVOLA_SMTP_PASSWORD", "str", "", "gateway", "unset; the SMTP password"),
    Variable(
        "TAVOLA_SMTP_STARTTLS", "bool", True, "gateway", "true: STARTTLS before the login; false for a local relay"
    ),
    Variable(
        "TAVOLA_CHAT_TABLES",
        "str",
        "borgia:rated=spectators,mortadella:rated=spectators",
        "gateway",
        "`borgia:rated=spectators,mortadella:rated=spectators`: which chat channels each table has, as `<game or *>:<rated, unrated or *>=<on, spectators or off>` rules, the last that matches deciding (none matches: `on`, both channels); `spectators` keeps the spectators' channel and turns the players' off ([why](#chat))",
    ),
    Variable(
        "TAVOLA_CHAT_LOBBY", "bool", False, "gateway", "false: no lobby chat; true: a lobby channel for every player"
    ),
    Variable(
        "TAVOLA_CHAT_PER_MINUTE",
        "int",
        20,
        "gateway",
        "20, 5: chat messages one player may send a minute, in bursts of up to 5 (a token bucket shared by every gateway); 0 turns it off",
        minimum=0,
    ),
    Variable("TAVOLA_CHAT_BURST", "int", 5, "gateway", "see `TAVOLA_CHAT_PER_MINUTE`", minimum=1),
    Variable(
        "TAVOLA_CHAT_MAX_CHARACTERS", "int", 500, "gateway", "500: the longest chat message, in characters", minimum=1
    ),
    Variable(
        "TAVOLA_CHAT_HISTORY",
        "int",
        500,
        "gateway",
        "500: the messages each channel keeps (a table's go with its keys; older ones drop off)",
        minimum=1,
    ),
    Variable(
        "TAVOLA_CHAT_FILTER",
        "str",
        "",
        "gateway",
        "unset: every message passes; `module:callable`, called with each message's text and a `ChatContext` (gateway/chat_policy.py) before it is kept: it returns the text to keep (it may rewrite it) or `None` to refuse it (`CHAT_FILTERED`)",
    ),
    Variable(
        "TAVOLA_CHAT_WORDS",
        "str",
        "",
        "gateway",
        "unset; a file of words, one a line (`#` comments): a message holding one of them as a word, case folded, is refused (`CHAT_FILTERED`); checked before `TAVOLA_CHAT_FILTER`",
    ),
    Variable(
        "TAVOLA_RATING_RESEND_SECONDS",
        "float",
        30.0,
        "gateway",
        "30: how long a finished rated table's rating update may stay unapplied before a gateway sends its task again (a worker killed mid-update loses nothing; a copy changes nothing). The game's finishing commit writes the update's job with it, so a gateway stopped right after that commit loses nothing either",
        minimum=0,
    ),
    Variable(
        "TAVOLA_RATING_FINISH_PAUSE_SECONDS",
        "float",
        0.0,
        "gateway",
        "unset; tests only: the gateway hangs this long right after a rated table's finishing commit, a window in which to kill it",
        minimum=0,
    ),
    Variable(
        "TAVOLA_PROVISIONAL_GAMES",
        "int",
        10,
        "gateway, workers",
        "10: rated games against established opponents (for a bot, other bots too) a player plays before it is established and a leaderboard lists it; until then its results move others' means by a tenth ([players.md](players.md#accounts-quick-play-and-ratings)); 0: every player established from the start",
        minimum=0,
    ),
    Variable(
        "TAVOLA_RATING_PAUSE_SECONDS",
        "float",
        0.0,
        "workers",
        "unset; tests only: a rating update waits this long before it writes, a window in which to kill its worker",
        minimum=0,
    ),
    Variable(
        "TAVOLA_QUICKPLAY_BOT_FILL_SECONDS",
        "float",
        20.0,
        "gateway",
        "20: how long the oldest searcher of a quick-play group waits for people before its empty seats go to bots",
        minimum=0,
    ),
    Variable(
        "TAVOLA_QUICKPLAY_TIMEOUT_SECONDS",
        "float",
        120.0,
        "gateway",
        "120: a search that finds no table in this long ends (`DEADLINE_EXCEEDED` / `SEARCH_TIMED_OUT`)",
        minimum=0,
    ),
    Variable("TAVOLA_QUICKPLAY_WINDOW", "float", 100.0, "gateway", _QUICKPLAY_WINDOW, minimum=0),
    Variable("TAVOLA_QUICKPLAY_WINDOW_PER_SECOND", "float", 50.0, "gateway", _QUICKPLAY_WINDOW, minimum=0),
    Variable(
        "TAVOLA_QUICKPLAY_DECISION_SECONDS",
        "int",
        120,
        "gateway",
        "120: the decision timer of a quick-play table, after which a bot takes a silent seat over",
        minimum=1,
    ),
    Variable(
        "TAVOLA_QUICKPLAY_BOTS",
        "str",
        "",
        "gateway",
        "unset: the search bot's levels, `ismcts:level=1;...;ismcts:level=8`; else `bot;bot;...` (each with its options): the bots that may fill quick-play seats. Every empty seat of a table goes to the one among them, rated at the game (bots are rated players, `bot:<bot>`), whose rating is nearest the mean rating of the people at the table; when the gateway accepts none of them for the game (`TAVOLA_BOTS`), every bot it accepts is a candidate",
    ),
    Variable(
        "TAVOLA_QUICKPLAY_DEFAULT_BOT",
        "str",
        "",
        "gateway",
        "`ismcts:level=4`: the bot that fills quick-play seats while none of the candidates has a rating at the game yet (the first candidate when the gateway does not accept it)",
    ),
)
