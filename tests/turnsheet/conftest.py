from tests.mail.stubs import ensure_mapdata

ensure_mapdata()
