"""Where pbm's shipped folders are: migrations, templates and fonts.

In the source tree ``migrations/`` and ``templates/`` are top-level folders (the
design card's layout); a built wheel carries them as the packages
``pbm.migrations`` and ``pbm.templates`` (see ``setup.py``).  Both are found here
through ``importlib.resources``, so ``pip install .``, ``pipx install .``, a wheel
and an editable checkout all work the same.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

_CHECKOUT = Path(__file__).resolve().parent.parent


def resource_dir(name: str) -> Path:
    """The folder of ``name`` ("migrations", "templates", "fonts") as a real path."""
    found = resources.files("pbm") / name  # the wheel's pbm/migrations, pbm/templates, pbm/fonts
    if found.is_dir():
        with resources.as_file(found) as path:
            return Path(path)
    local = _CHECKOUT / name
    if local.is_dir():
        return local
    raise FileNotFoundError(f"pbm's {name} folder is missing from this installation")


def migrations_dir() -> Path:
    return resource_dir("migrations")


def templates_dir() -> Path:
    return resource_dir("templates")
