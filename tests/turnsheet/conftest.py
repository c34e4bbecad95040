from tests.mail.stubs import ensure_mapdata

ensure_mapdata()

from tests.mail.fixtures import game  # noqa: E402,F401
