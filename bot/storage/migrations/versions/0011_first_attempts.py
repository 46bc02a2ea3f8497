"""Each learner's first attempt at each item, kept as attempts are stored, for the organiser's report.

Revision ID: 0011_first_attempts
Revises: 0010_report_indexes
Create Date: 2026-12-04

`first_attempts` holds one row per pack, learner, item and scope: the first attempt in that scope
(its id, verdict, answer and detail, and the seconds it took: from the previous answer at the pack
in its quiz, or the quiz's start; NULL outside a quiz), the attempts in the scope up to the first
right one or, while none was (`solved` false), so far; and on the row of the first attempt in any
scope (NULL on the others) the same count over every scope (`tries_any`, `solved_any`). A trigger
on `attempts` writes them in the transaction that stores the attempt, whichever code inserts it;
this migration fills them in for the attempts stored before. The report reads these rows instead
of finding the first attempts among all of them (see `bot.storage.report_firsts`).

On SQLite a later migration that rebuilds `attempts` (`batch_alter_table`) drops the trigger: it
must create it again (`TRIGGER_SQLITE`).
"""

# ruff: noqa: S608  (every statement here is constant text made from this module's constants)

import sqlalchemy as sa
from alembic import op

revision = "0011_first_attempts"
down_revision = "0010_report_indexes"
branch_labels = None
depends_on = None

# The seconds an attempt took, computed as the report did from the attempts (`row` is NEW or `a`).
_SECS_SQLITE = (
    "(SELECT CAST(round((julianday({row}.at) - julianday(coalesce((SELECT p.at FROM attempts p"
    " WHERE p.pack_id = {row}.pack_id AND p.session_id = {row}.session_id AND p.id < {row}.id"
    " ORDER BY p.pack_id DESC, p.session_id DESC, p.id DESC LIMIT 1),"
    " s.created_at))) * 86400.0) AS INTEGER) FROM sessions s WHERE s.id = {row}.session_id)"
)
_SECS_POSTGRESQL = (
    "(SELECT CAST(round(extract(epoch FROM {row}.at - coalesce((SELECT p.at FROM attempts p"
    " WHERE p.pack_id = {row}.pack_id AND p.session_id = {row}.session_id AND p.id < {row}.id"
    " ORDER BY p.pack_id DESC, p.session_id DESC, p.id DESC LIMIT 1),"
    " s.created_at))) AS INTEGER) FROM sessions s WHERE s.id = {row}.session_id)"
)
_COLUMNS = (
    "pack_id, platform, user_id, question_id, scope, attempt_id, correct, answer, detail, secs, tries, solved, tries_any, solved_any"
)
_KEY = "pack_id = NEW.pack_id AND platform = NEW.platform AND user_id = NEW.user_id AND question_id = NEW.question_id"
_KEY_F = _KEY.replace("pack_id =", "f.pack_id =").replace(" AND ", " AND f.")


def _insert(secs: str, conflict: str) -> str:
    """The row of a first attempt in a scope (with the tries over every scope when it is the first in any)."""
    return f"""
    INSERT INTO first_attempts ({_COLUMNS})
    SELECT NEW.pack_id, NEW.platform, NEW.user_id, NEW.question_id, NEW.scope, NEW.id, NEW.correct, NEW.answer, NEW.detail,
        {secs.format(row="NEW")}, 1, NEW.correct, CASE WHEN w.alone THEN 1 END, CASE WHEN w.alone THEN NEW.correct END
    FROM (SELECT NOT EXISTS (SELECT 1 FROM first_attempts f WHERE {_KEY_F}) AS alone) w
    WHERE NOT EXISTS (SELECT 1 FROM first_attempts f WHERE {_KEY_F} AND f.scope = NEW.scope){conflict}"""


# One more try on the rows of the learner's item not yet right: in the attempt's scope, and over every scope.
_UPDATE = f"""
    UPDATE first_attempts SET
        tries = CASE WHEN scope = NEW.scope AND NOT solved THEN tries + 1 ELSE tries END,
        solved = CASE WHEN scope = NEW.scope AND NOT solved THEN NEW.correct ELSE solved END,
        tries_any = CASE WHEN NOT solved_any THEN tries_any + 1 ELSE tries_any END,
        solved_any = CASE WHEN NOT solved_any THEN NEW.correct ELSE solved_any END
    WHERE {_KEY} AND attempt_id <> NEW.id AND ((scope = NEW.scope AND NOT solved) OR NOT solved_any)"""

# Both statements find their rows by the table's key (all of it, or all but the scope): no plan reads more.
TRIGGER_SQLITE = f"""
CREATE TRIGGER first_attempts_note AFTER INSERT ON attempts
BEGIN{_insert(_SECS_SQLITE, "")};{_UPDATE};
END"""

# PostgreSQL skips the update after the first attempt at an item in any scope (nothing else to count):
# the most common attempt in a quiz costs one statement.
FUNCTION_POSTGRESQL = f"""
CREATE FUNCTION first_attempts_note() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    fresh integer;
BEGIN{_insert(_SECS_POSTGRESQL, " ON CONFLICT DO NOTHING")}
    RETURNING tries_any INTO fresh;
    IF fresh IS NULL THEN{_UPDATE};
    END IF;
    RETURN NULL;
END $$"""
TRIGGER_POSTGRESQL = (
    "CREATE TRIGGER first_attempts_note AFTER INSERT ON attempts FOR EACH ROW EXECUTE FUNCTION first_attempts_note()"
)


def _backfill(secs: str) -> str:
    """The rows of the attempts stored before: the first in each scope, with the tries in it and, on the first of all, in any."""
    key = "pack_id, platform, user_id, question_id"
    groups = (
        "SELECT {key}{scope}, min(id) AS first_id, min(CASE WHEN correct THEN id END) AS right_id, count(*) AS n"
        " FROM attempts GROUP BY {key}{scope}"
    )

    def tries(g: str, scoped: bool) -> str:
        within = f" AND b.scope = {g}.scope" if scoped else ""
        return (
            f"CASE WHEN {g}.right_id IS NULL THEN {g}.n ELSE (SELECT count(*) FROM attempts b WHERE b.pack_id = a.pack_id"
            " AND b.platform = a.platform AND b.user_id = a.user_id AND b.question_id = a.question_id"
            f" AND b.id <= {g}.right_id{within}) END"
        )

    return f"""
    INSERT INTO first_attempts ({_COLUMNS})
    SELECT a.pack_id, a.platform, a.user_id, a.question_id, a.scope, a.id, a.correct, a.answer, a.detail,
        {secs.format(row="a")}, {tries("g", True)}, g.right_id IS NOT NULL,
        CASE WHEN h.first_id = g.first_id THEN {tries("h", False)} END,
        CASE WHEN h.first_id = g.first_id THEN h.right_id IS NOT NULL END
    FROM ({groups.format(key=key, scope=", scope")}) g
    JOIN ({groups.format(key=key, scope="")}) h
        ON h.pack_id = g.pack_id AND h.platform = g.platform AND h.user_id = g.user_id AND h.question_id = g.question_id
    JOIN attempts a ON a.id = g.first_id"""


def upgrade() -> None:
    op.create_table(
        "first_attempts",
        sa.Column("pack_id", sa.String(40), primary_key=True),
        sa.Column("platform", sa.String(20), primary_key=True),
        sa.Column("user_id", sa.String(100), primary_key=True),
        sa.Column("question_id", sa.String(64), primary_key=True),
        sa.Column("scope", sa.String(100), primary_key=True),
        sa.Column("attempt_id", sa.Integer, nullable=False),
        sa.Column("correct", sa.Boolean, nullable=False),
        sa.Column("answer", sa.Text, nullable=False),
        sa.Column("detail", sa.Text),
        sa.Column("secs", sa.Integer),
        sa.Column("tries", sa.Integer, nullable=False),
        sa.Column("solved", sa.Boolean, nullable=False),
        sa.Column("tries_any", sa.Integer),
        sa.Column("solved_any", sa.Boolean),
        sqlite_with_rowid=False,
    )
    sqlite = op.get_bind().dialect.name == "sqlite"
    op.execute(_backfill(_SECS_SQLITE if sqlite else _SECS_POSTGRESQL))
    if sqlite:
        op.execute(TRIGGER_SQLITE)
    else:
        op.execute(FUNCTION_POSTGRESQL)
        op.execute(TRIGGER_POSTGRESQL)


def downgrade() -> None:
    op.execute("DROP TRIGGER first_attempts_note" + ("" if op.get_bind().dialect.name == "sqlite" else " ON attempts"))
    if op.get_bind().dialect.name != "sqlite":
        op.execute("DROP FUNCTION first_attempts_note()")
    op.drop_table("first_attempts")
