"""mailbox reads (issue 34, item 12): a mailbox file read again under another name is remembered

A Maildir file whose bytes were stored before under another file's name (a copy, a redelivery to a
second folder) was read and listed as a duplicate on every pass: only the first name was known.

Revision ID: 0007_mailbox_reads
Revises: 0006_reliability
"""

from alembic import op
import sqlalchemy as sa


revision = "0007_mailbox_reads"
down_revision = "0006_reliability"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "mailbox_reads",
        sa.Column("source", sa.String(length=200), nullable=False),
        sa.Column("inbound_id", sa.Integer(), nullable=False),
        sa.Column("read_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(["inbound_id"], ["inbound_messages.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("source"),
    )


def downgrade() -> None:
    op.drop_table("mailbox_reads")
