"""reliability (issue 13): content digest of inbound mail, per-address answer limits

Revision ID: 0006_reliability
Revises: 0005_report
"""

from alembic import op
import sqlalchemy as sa


revision = "0006_reliability"
down_revision = "0005_report"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("inbound_messages") as batch:
        batch.add_column(sa.Column("content_sha256", sa.String(length=64), nullable=True))
        batch.create_index("ix_inbound_messages_content_sha256", ["content_sha256"])
    op.create_table(
        "answer_limits",
        sa.Column("address", sa.String(length=254), nullable=False),
        sa.Column("day", sa.String(length=10), nullable=False),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("address", "day"),
    )


def downgrade() -> None:
    op.drop_table("answer_limits")
    with op.batch_alter_table("inbound_messages") as batch:
        batch.drop_index("ix_inbound_messages_content_sha256")
        batch.drop_column("content_sha256")
