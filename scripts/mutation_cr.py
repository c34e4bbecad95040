#!/usr/bin/env python3
"""Mutation testing of the Continental Rails II engine and order validator (issue 31, part 2).

Not part of the test suite.  It runs mutmut (``pip install -e ".[dev]"``) over ``pbm/cr/engine``
and ``pbm/cr/validate.py`` against the fast CR unit tests only (no whole-season, mail or PDF
tests), on SQLite only, one module at a time, most important first, under ``nice``:

    .venv/bin/python scripts/mutation_cr.py                      # every module in MODULES order
    .venv/bin/python scripts/mutation_cr.py operations market    # only these
    .venv/bin/python scripts/mutation_cr.py --report             # scores of what has run so far

It works in a scratch copy (``--workdir``, default ``/tmp/pbm-mutation-cr``): the checkout is never
written to.  A second run in the same workdir reuses mutmut's results (delete the workdir to start
over).  It prints, per module, the mutants killed, survived, timed out and not covered by the
selected tests, and the score killed / (all - not covered is reported separately); ``--survivors``
prints the diff of each surviving mutant (``mutmut show``).  docs/cr/rules-map.md, "Mutation
testing", has the last scores and the equivalent mutants that survive, with the reason.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Most important first: the rules issue 31's hand mutations found untested.
MODULES = ["operations", "mergers", "market", "loans", "victory", "capital", "financing", "tycoons",
           "validate", "construction", "rights", "elections", "privates", "treasury", "climate",
           "politics", "checks", "tables", "autopilot", "rows", "writes", "context"]

# The fast CR unit tests that exercise the engine (each well under 2 s); the validator's tests
# only when the validator is mutated.  The whole-game, simulation, AI, export and write-back
# tests are left out (slow, and they test conservation, not rules).
TESTS = ["tests/cr/test_mutation_rules.py", "tests/cr/test_mutation_rules2.py", "tests/cr/test_mutation_rules3.py",
         "tests/cr/test_mutation_rules4.py", "tests/cr/test_mutation_rules5.py", "tests/cr/test_mutation_rules6.py",
         "tests/cr/test_rows.py", "tests/cr/test_writes.py",
         "tests/cr/test_engine_steps.py", "tests/cr/test_rules_round2.py",
         "tests/cr/test_examples.py", "tests/cr/test_engine_rules.py", "tests/cr/test_mutation_rules7.py",
         "tests/cr/test_mutation_rules8.py", "tests/cr/test_mutation_rules9.py"]
VALIDATE_TESTS = ["tests/cr/test_validate.py"]


# mutmut 3.7 (the last release that installs beside pbm's click < 8.3) reads pytest's
# ``Item._nodeid``, which pytest 9 no longer has: give it back as the public ``nodeid``.
MUTMUT = """import sys
import _pytest.nodes as nodes
if not hasattr(nodes.Node, "_nodeid"):
    nodes.Node._nodeid = property(lambda self: self.nodeid)
from mutmut.__main__ import cli
cli()
"""


# Lines not mutated: the turn log's wording (an event's step, rule, text, headline and private
# flags, and the lines that continue its text).  Each string literal gives mutmut three mutants
# ("XX…XX", lower case, upper case) that change only a sentence of a report, never an outcome
# of the rules; they are left to the report tests and are not counted here.  An event's kind and
# amount share its first line and are not mutated either: the tests assert on them all the same.
NOT_MUTATED = [r"ctx\.event\(", r"^\s*f?\"", r"headline=|private_to="]


def mutmut(*args: str) -> list[str]:
    return [sys.executable, "-c", MUTMUT, *args]


def module_path(name: str) -> str:
    return "pbm/cr/validate.py" if name == "validate" else f"pbm/cr/engine/{name}.py"


def mutant_glob(name: str) -> str:
    return "pbm.cr.validate.*" if name == "validate" else f"pbm.cr.engine.{name}.*"


def prepare(workdir: Path, modules: list[str]) -> None:
    """A copy of the package and the tests with mutmut's configuration.  Only ``modules`` (and
    those of earlier runs in the workdir) are mutated: mutmut's call tracing in a hot helper such
    as the context's ledger would slow every test."""
    workdir.mkdir(parents=True, exist_ok=True)
    for sub in ("pbm", "tests", "migrations", "templates"):  # pbm.resources finds the last two beside pbm/
        shutil.copytree(ROOT / sub, workdir / sub, dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    shared = workdir / "shared"  # tests/conftest.py finds the rulebooks beside the checkout
    if not shared.exists() and (ROOT.parent / "shared").exists():
        shared.symlink_to(ROOT.parent / "shared")
    (workdir / "mutants").mkdir(exist_ok=True)
    if not (workdir / "mutants" / "shared").exists() and (ROOT.parent / "shared").exists():
        (workdir / "mutants" / "shared").symlink_to(ROOT.parent / "shared")
    old = workdir / "pyproject.toml"
    if old.exists():  # a module mutated in an earlier run stays mutated (its results are kept)
        import tomllib

        before = tomllib.loads(old.read_text()).get("tool", {}).get("mutmut", {}).get("only_mutate", [])
        modules = [m for m in MODULES if m in modules or module_path(m) in before]
    text = (ROOT / "pyproject.toml").read_text()
    tests = [t for t in TESTS + (VALIDATE_TESTS if "validate" in modules else []) if (ROOT / t).exists()]
    only = ", ".join(f'"{module_path(m)}"' for m in modules)
    text += ("\n[tool.mutmut]\n"
             'source_paths = ["pbm"]\n'
             'also_copy = ["migrations", "templates"]\n'
             f"only_mutate = [{only}]\n"
             f"pytest_add_cli_args_test_selection = [{', '.join(repr(t) for t in tests)}, "
             "'-k', 'not postgresql']\n"
             "pytest_add_cli_args = ['-p', 'no:cacheprovider', '-p', 'no:xdist', '-p', 'no:benchmark', '-q']\n"
             f"do_not_mutate_patterns = {json.dumps(NOT_MUTATED)}\n"
             "timeout_multiplier = 5.0\n")
    (workdir / "pyproject.toml").write_text(text)


def results(workdir: Path) -> dict[str, Counter]:
    out = subprocess.run(mutmut("results", "--all", "true"), cwd=workdir,
                         capture_output=True, text=True, env=_env())
    per: dict[str, Counter] = {}
    for line in out.stdout.splitlines():
        m = re.match(r"\s*(pbm\.cr\.(?:engine\.)?(\w+))\.\S+: (.+)$", line)
        if m:
            per.setdefault(m.group(2), Counter())[m.group(3).strip()] += 1
    return per


def survivors(workdir: Path, module: str) -> list[str]:
    out = subprocess.run(mutmut("results"), cwd=workdir, capture_output=True, text=True,
                         env=_env())
    prefix = mutant_glob(module)[:-1]
    return [line.split(":")[0].strip() for line in out.stdout.splitlines()
            if line.strip().startswith(prefix) and line.strip().endswith("survived")]


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PBM_TEST_PG"] = "off"  # SQLite only
    env.setdefault("PYTHONHASHSEED", "0")
    return env


def diff_of(workdir: Path, name: str) -> tuple[str, str]:
    """The original and the mutated line of a mutant (``mutmut show``)."""
    out = subprocess.run(mutmut("show", name), cwd=workdir, capture_output=True, text=True, env=_env()).stdout
    minus = [x[1:] for x in out.splitlines() if x.startswith("-") and not x.startswith("---")]
    plus = [x[1:] for x in out.splitlines() if x.startswith("+") and not x.startswith("+++")]
    return "\n".join(minus), "\n".join(plus)


LABEL = re.compile(r'"[^"]*"')


def is_ledger_label(old: str, new: str) -> bool:
    """A mutant that changes only words, not an outcome: the step number or the memo of a
    ledger entry (``ctx.pay(..., "13.1", "operating revenue")``: the money moved is the same),
    or a sentence for a report (a string with a space in it, such as an event's description)."""
    if "\n" in old or old == new or LABEL.sub('""', old) != LABEL.sub('""', new):
        return False
    changed = [a for a, b in zip(LABEL.findall(old), LABEL.findall(new)) if a != b]
    return "ctx.pay(" in old or all(" " in a for a in changed)


def report(workdir: Path, modules: list[str], show: bool) -> None:
    per = results(workdir)
    print(f"{'module':12} {'mutants':>7} {'killed':>6} {'survived':>8} {'no tests':>8} {'words':>6} "
          f"{'score':>6} {'less words':>11}")
    for m in modules:
        c = per.get(m)
        if not c:
            continue
        killed = c["killed"] + c["timeout"] + c["segfault"]
        tested = killed + c["survived"] + c["suspicious"]
        names = survivors(workdir, m)
        diffs = {n: diff_of(workdir, n) for n in names}
        labels = [n for n, (old, new) in diffs.items() if is_ledger_label(old, new)]
        score = killed / tested if tested else 0.0
        rest = killed / (tested - len(labels)) if tested - len(labels) else 0.0
        print(f"{m:12} {sum(c.values()):7} {killed:6} {c['survived']:8} {c['no tests']:8} {len(labels):6} "
              f"{score:6.1%} {rest:11.1%}" + (f"  (not yet run: {c['not checked']})" if c["not checked"] else ""))
        if show:
            for n, (old, new) in diffs.items():
                if n not in labels:
                    print(f"  {n}\n    - {old.strip()}\n    + {new.strip()}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("modules", nargs="*", help=f"modules, default all in this order: {' '.join(MODULES)}")
    ap.add_argument("--workdir", type=Path, default=Path("/tmp/pbm-mutation-cr"))
    ap.add_argument("--max-children", type=int, default=1, help="parallel mutants (default 1: a shared machine)")
    ap.add_argument("--report", action="store_true", help="only print the scores of what has run")
    ap.add_argument("--survivors", action="store_true", help="print the diff of each surviving mutant")
    ap.add_argument("--retest", action="store_true",
                    help="run the surviving mutants again (after new tests: mutmut keeps a result otherwise)")
    args = ap.parse_args()
    modules = args.modules or MODULES
    unknown = [m for m in modules if m not in MODULES]
    if unknown:
        ap.error(f"unknown module(s): {', '.join(unknown)}")
    if shutil.which("mutmut", path=str(Path(sys.executable).parent)) is None:
        print('mutmut is not installed: .venv/bin/pip install -e ".[dev]"', file=sys.stderr)
        return 2
    if not args.report:
        prepare(args.workdir, modules)
        for m in modules:
            print(f"== {m}", flush=True)
            names = survivors(args.workdir, m) if args.retest else [mutant_glob(m)]
            if not names:
                continue
            rc = subprocess.run(["nice", "-n", "10", *mutmut("run", "--max-children", str(args.max_children),
                                                             *names)],
                                cwd=args.workdir, env=_env()).returncode
            if rc:
                print(f"mutmut failed on {m} (exit {rc})", file=sys.stderr)
                return rc
    report(args.workdir, modules, args.survivors)
    return 0


if __name__ == "__main__":
    sys.exit(main())
