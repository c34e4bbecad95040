"""User-facing errors.

A :class:`PbmError` says what is wrong and where (file and line when there is
one).  It is a ``click.ClickException``, so the CLI prints it as one line on
stderr (``Error: ...``) and exits with code 2, never with a traceback.
"""

import click


class PbmError(click.ClickException):
    """A problem the user can fix; ``str(error)`` says what and where."""

    exit_code = 2
