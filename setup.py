"""The top-level ``migrations/`` and ``templates/`` folders ship inside the wheel.

They stay where the design card puts them in the source tree, and are mapped
onto the packages ``pbm.migrations`` and ``pbm.templates`` when built, so an
installed pbm finds them with ``importlib.resources`` (see ``pbm.resources``).
Everything else is declared in ``pyproject.toml``.
"""

from setuptools import find_namespace_packages, setup

MAPPED = {
    "pbm.migrations": "migrations",
    "pbm.migrations.versions": "migrations/versions",
    "pbm.templates": "templates",
    "pbm.templates.site": "templates/site",
    "pbm.templates.web": "templates/web",
}

setup(
    packages=find_namespace_packages(include=["pbm", "pbm.*"], exclude=["*__pycache__*"]) + list(MAPPED),
    package_dir=MAPPED,
)
