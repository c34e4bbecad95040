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
import io
import os
import sys

CACHES = (("pbm.cr.engine.rows", ("_TABLES", "_MODEL_OF")),
          ("pbm.cr.engine.writes", ("_KEY_PAIRS", "_DEFAULTS", "_COLUMN_KEYS", "_MANY_TO_ONE")))


def main() -> int:
    import pytest

    if len(sys.argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    names_file, out_file, *tests = sys.argv[1:]
    names = [n for n in open(names_file, encoding="utf-8").read().split() if n]
    done = set()
    if os.path.exists(out_file):
        done = {line.split()[1] for line in open(out_file, encoding="utf-8") if line.strip()}
    os.environ.setdefault("PBM_TEST_PG", "off")
    for name in names:
        if name in done:
            continue
        for module, caches in CACHES:
            if module in sys.modules:
                for cache in caches:
                    getattr(sys.modules[module], cache).clear()
        os.environ["MUTANT_UNDER_TEST"] = name
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            code = pytest.main(["-q", "-x", "-p", "no:randomly", "-p", "no:cacheprovider", "-n", "0", *tests])
        os.environ["MUTANT_UNDER_TEST"] = ""
        verdict = "KILLED" if code == pytest.ExitCode.TESTS_FAILED else "SURVIVED" if code == 0 else f"ERROR{int(code)}"
        with open(out_file, "a", encoding="utf-8") as f:
            f.write(f"{verdict} {name}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
