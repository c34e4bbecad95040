"""Turn reports: per-player PDFs, moderator report, archive."""
