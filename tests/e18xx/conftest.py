import pytest

from pbm.e18xx.fixtures import load_fixture

BANK_FIXTURE = "18GA/18GA_game_end_bank.json"


@pytest.fixture(scope="session")
def bank_export():
    data, where = load_fixture(BANK_FIXTURE)
    if data is None:
        pytest.skip(where)
    return data
