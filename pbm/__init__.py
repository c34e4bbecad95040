"""pbm: the turn processor a play-by-mail game moderator runs every week."""

__version__ = "0.1.0"
