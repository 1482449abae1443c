"""The archive of finished tables: record, log, seats with results and rating changes, chat.

Revision ID: 0001
Revises:
"""

from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute(
        """
        CREATE TABLE archived_tables (
            table_id text PRIMARY KEY,
            game_id text NOT NULL,
            -- the version the copy is of: a later commit (an entry appended after the end)
            -- replaces it
            version bigint NOT NULL,
            last_seq bigint NOT NULL,
            finish_time timestamptz NOT NULL,
            rated boolean NOT NULL,
            replay_mode boolean NOT NULL,
            player_count integer NOT NULL,
            options jsonb NOT NULL,
            -- uint64 seeds: numeric, bigint stops at 2^63
            seed numeric(20, 0) NOT NULL,
            seed_salt bytea NOT NULL,
            seed_commitment bytea NOT NULL,
            -- tavola.rules.v1.GameOutcome, and its winners and scores readable in SQL
            outcome bytea NOT NULL,
            results jsonb NOT NULL,
            -- the TableRecord and "types" field as Redis held them: reads answer from these
            record bytea NOT NULL,
            types bytea NOT NULL,
            archived_at timestamptz NOT NULL DEFAULT now()
        );
        CREATE INDEX archived_tables_game_month ON archived_tables (game_id, finish_time);

        CREATE TABLE archived_seats (
            table_id text NOT NULL REFERENCES archived_tables ON DELETE CASCADE,
            seat integer NOT NULL,
            -- NULL for a seat nobody holds as a player (a guest, or a deleted account)
            player_id text,
            display_name text NOT NULL,
            kind text NOT NULL,
            place integer NOT NULL,
            -- the seat's rating change at a rated table, once applied
            rating_change double precision,
            PRIMARY KEY (table_id, seat)
        );
        CREATE INDEX archived_seats_player ON archived_seats (player_id) WHERE player_id IS NOT NULL;

        CREATE TABLE archived_log (
            table_id text NOT NULL REFERENCES archived_tables ON DELETE CASCADE,
            seq bigint NOT NULL,
            -- tavola.store.v1.LogRecord, as Redis held it
            entry bytea NOT NULL,
            PRIMARY KEY (table_id, seq)
        );

        -- A table's chat, for when tables have one: empty until then.
        CREATE TABLE archived_chat (
            table_id text NOT NULL REFERENCES archived_tables ON DELETE CASCADE,
            seq bigint NOT NULL,
            seat integer,
            player_id text,
            sent_at timestamptz NOT NULL,
            body text NOT NULL,
            PRIMARY KEY (table_id, seq)
        );
        CREATE INDEX archived_chat_player ON archived_chat (player_id) WHERE player_id IS NOT NULL;
        """
    )


def downgrade() -> None:
    op.execute("DROP TABLE archived_chat, archived_log, archived_seats, archived_tables")
