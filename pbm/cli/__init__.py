"""The ``pbm`` command line: one module per command group.

:mod:`pbm.cli.root` holds the root command and the commands of every game (new-game, doctor,
worker, games, show, export: each game's kind answers through :mod:`pbm.kinds`); :mod:`pbm.cli.cr`
Continental Rails' map and turns; :mod:`pbm.cli.mail` the mail; :mod:`pbm.cli.report` Continental
Rails' reports; :mod:`pbm.cli.pipeline` the weekly cycle, archive, records and demo;
:mod:`pbm.cli.e18xx` and :mod:`pbm.cli.pbem` the 18xx games.  Every module imports only typer at load time and what a command needs when it
runs, so ``pbm --help`` starts quickly (``scripts/bench_cli.py``).
"""
from __future__ import annotations

import sys
from typing import Any

if "typer" not in sys.modules and "rich" not in sys.modules:
    # typer formats nothing with rich here (rich_markup_mode=None, no pretty tracebacks) but imports
    # it, which costs half of `pbm --help`: load typer without it, then let rich be importable again.
    sys.modules["rich"] = None  # type: ignore[assignment]
    try:
        import typer  # noqa: F401
    finally:
        del sys.modules["rich"]


def main() -> None:
    """Entry point of the ``pbm`` console script and ``python -m pbm``."""
    from pbm.cli.root import main as run

    run()


def __getattr__(name: str) -> Any:
    if name == "app":  # ``from pbm.cli import app``: the root typer app
        from pbm.cli.root import app

        return app
    raise AttributeError(name)
