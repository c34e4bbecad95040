#!/usr/bin/env python3
"""Try mutmut's mutants by hand, in one process (issue 31, part 2; not part of the test suite).

``scripts/mutation_cr.py`` runs mutmut, which runs each mutant against every listed test that
calls the mutated function.  For a function that every turn calls (the turn context's ledger, the
turn's row writes) a surviving mutant reruns a few hundred tests, minutes each on a loaded
machine.  This script tries mutants against the few tests named instead: run it in the
``mutants/`` folder of a workdir that mutmut has generated (``mutation_cr.py --workdir W ...``,
stopped once "Generating mutants" is done if need be)::

    cd W/mutants
    PBM_TEST_PG=off python ../../path/to/scripts/mutation_cr_hand.py names.txt out.txt \\
        tests/cr/test_mutation_rules6.py tests/cr/test_rows.py [-k EXPR]

With ``--map MAP.json [--cap N]`` (``scripts/mutation_cr_cover.py``) each mutant runs only against
the tests that run the lines it changes (at most N, default 40, those running most of its function
first), after any tests named, with the plugins of ``scripts/mutation_cr_plugins.py`` (a migrated
SQLite template copied for each test's fresh database): about 1–5 s a mutant on a loaded machine,
where mutmut took 10–30.  A mutant that runs past four times its tests' time (plus a minute) is
counted ``TIMEOUT`` (killed, as mutmut counts it).

``names.txt`` lists mutant names (``pbm.cr.engine.rows.xǁRowsǁwrite__mutmut_12``, one a line, as
``mutmut results`` prints them); each line of ``out.txt`` is ``KILLED name`` or ``SURVIVED name``
(a name already there is skipped, so the script can be stopped and started again).  mutmut's
trampolines read ``MUTANT_UNDER_TEST`` at each call, so one process runs pytest once per mutant;
the module-level caches of ``rows`` and ``writes`` (a model's mapping facts, worked out once a
process) are emptied before each, or a mutant of the code that fills them would never run.

A mutant killed here fails a test of the script's list: it is killed.  One that survives here
may still fail a test not named: count it as surviving (the conservative score) or try it with
more tests.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import os
import sys

CACHES = (("pbm.cr.engine.rows", ("_TABLES", "_MODEL_OF")),
          ("pbm.cr.engine.writes", ("_KEY_PAIRS", "_DEFAULTS", "_COLUMN_KEYS", "_MANY_TO_ONE")))


def main() -> int:
    import json
    import signal
    import time

    import pytest

    args = sys.argv[1:]
    mapping, cap = None, 40
    if "--map" in args:  # each mutant against the tests that run its changed lines (mutation_cr_cover.py)
        i = args.index("--map")
        mapping = json.loads(open(args[i + 1], encoding="utf-8").read())
        del args[i:i + 2]
    if "--cap" in args:
        i = args.index("--cap")
        cap = int(args[i + 1])
        del args[i:i + 2]
    if len(args) < (2 if mapping else 3):
        print(__doc__, file=sys.stderr)
        return 2
    names_file, out_file, *tests = args
    names = [n for n in open(names_file, encoding="utf-8").read().split() if n]
    done = set()
    if os.path.exists(out_file):
        done = {line.split()[1] for line in open(out_file, encoding="utf-8") if line.strip()}
    os.environ.setdefault("PBM_TEST_PG", "off")
    extra = []
    if mapping is not None:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        extra = ["--tb=no", "-rN", "-p", "mutation_cr_plugins"]

    class Timeout(Exception):
        pass

    def alarm(signum, frame):
        raise Timeout()

    signal.signal(signal.SIGALRM, alarm)
    # The mutated modules are imported before any mutant is set, as mutmut forks each mutant from
    # a process that has imported them: code run at import (``rights._NO_THROUGH``, made by
    # ``_norm_city``) is the original's, and a mutant of it does not break the next one's import.
    os.environ["MUTANT_UNDER_TEST"] = ""
    if os.getcwd() not in sys.path:  # the mutated copy (the mutants/ folder), not an installed pbm
        sys.path.insert(0, os.getcwd())
    for module in sorted({name.rsplit(".", 1)[0] for name in names}):
        importlib.import_module(module)
    for name in names:
        if name in done:
            continue
        selected, note = tests, ""
        if mapping is not None:
            selected = [*tests, *mapping[name]["tests"][:cap]]
            note = f" {len(mapping[name]['tests'][:cap])}/{len(mapping[name]['tests'])}"
        started = time.time()
        if not selected:
            verdict = "NOTESTS"
        else:
            for module, caches in CACHES:
                if module in sys.modules:
                    for cache in caches:
                        getattr(sys.modules[module], cache).clear()
            os.environ["MUTANT_UNDER_TEST"] = name
            out = io.StringIO()
            # a mutant that loops forever is killed by a time limit, as mutmut's are
            limit = 60 + (4 * sum(mapping[name]["times"][:cap]) if mapping is not None else 600)
            signal.alarm(int(limit))
            try:
                with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
                    code = pytest.main(["-q", "-x", "-p", "no:randomly", "-p", "no:cacheprovider", "-n", "0",
                                        *extra, *selected])
                verdict = ("KILLED" if code == pytest.ExitCode.TESTS_FAILED else "SURVIVED" if code == 0
                           else f"ERROR{int(code)}")
            except Timeout:
                verdict = "TIMEOUT"
            finally:
                signal.alarm(0)
                os.environ["MUTANT_UNDER_TEST"] = ""
        with open(out_file, "a", encoding="utf-8") as f:
            f.write(f"{verdict} {name}{note} {time.time() - started:.1f}s\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
