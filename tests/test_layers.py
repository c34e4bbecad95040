"""Which rooms may import which: the mail intake finds game kinds through the
registry (pbm.kinds), never by importing a game package, and no game package
imports the intake."""
import ast
from pathlib import Path

import pbm

ROOT = Path(pbm.__file__).parent


def imports_of(folder: str) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for path in (ROOT / folder).rglob("*.py"):
        names: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names.add(node.module)
                names.update(f"{node.module}.{a.name}" for a in node.names)
            elif isinstance(node, ast.Import):
                names.update(a.name for a in node.names)
        out[str(path.relative_to(ROOT))] = names
    return out


def test_mail_never_imports_a_game_package():
    bad = {f: sorted(n for n in names if n.startswith("pbm.e18xx"))
           for f, names in imports_of("mail").items()}
    assert not {f: n for f, n in bad.items() if n}


def test_18xx_never_imports_the_mail_intake():
    bad = {f: sorted(n for n in names if n.startswith("pbm.mail.ingest"))
           for f, names in imports_of("e18xx").items()}
    assert not {f: n for f, n in bad.items() if n}


def test_registered_mail_kinds_provide_claim_and_handle():
    from pbm.kinds import mail_kinds

    assert [k.name for k in mail_kinds()] == ["18xx"]
    for kind in mail_kinds():
        assert callable(kind.claim) and callable(kind.handle)


def test_seats_and_secrets_are_core_not_continental_rails():
    """Seats, players files and secrets serve every game: neither the core modules
    nor the 18xx package import them from Continental Rails."""
    core = {**imports_of("e18xx")}
    for name in ("auth.py", "seats.py", "kinds.py"):
        path = ROOT / name
        names: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                names.add(node.module)
        core[name] = names
    bad = {f: sorted(n for n in names if n.startswith("pbm.cr")) for f, names in core.items()}
    assert not {f: n for f, n in bad.items() if n}


def test_players_file_limit_is_the_callers(tmp_path):
    import pytest

    from pbm.seats import PlayersFileError, read_players_file

    path = tmp_path / "p.csv"
    path.write_text("name,email\n" + "".join(f"P{i},p{i}@x.org\n" for i in range(6)))
    assert len(read_players_file(path)) == 6
    with pytest.raises(PlayersFileError, match=r":6: more than 4 players \(a rule\)"):
        read_players_file(path, max_seats=4, why="a rule")
