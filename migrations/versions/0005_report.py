"""cycle lock: one row while a weekly cycle runs

Revision ID: 0005_report
Revises: 0001
"""

from alembic import op
import sqlalchemy as sa


revision = "0005_report"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "cycle_locks",
        sa.Column("name", sa.String(length=40), nullable=False),
        sa.Column("holder", sa.String(length=64), nullable=False),
        sa.Column("host", sa.String(length=200), nullable=False),
        sa.Column("pid", sa.Integer(), nullable=False),
        sa.Column("acquired_at", sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint("name"),
    )


def downgrade() -> None:
    op.drop_table("cycle_locks")
