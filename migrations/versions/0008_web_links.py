"""web links (issue 33): each player's own page is reached by a secret link, kept as a hash

Revision ID: 0008_web_links
Revises: 0007_mailbox_reads
"""

from alembic import op
import sqlalchemy as sa


revision = "0008_web_links"
down_revision = "0007_mailbox_reads"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "web_links",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("player_number", sa.Integer(), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=True),
        sa.Column("revoked_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("token_hash"),
    )
    op.create_index("ix_web_links_game_id", "web_links", ["game_id"])


def downgrade() -> None:
    op.drop_index("ix_web_links_game_id", table_name="web_links")
    op.drop_table("web_links")
