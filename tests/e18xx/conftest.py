import pytest

from pbm.e18xx.fixtures import load_fixture

BANK_FIXTURE = "18GA/18GA_game_end_bank.json"


@pytest.fixture(scope="session")
def bank_export():
    data, where = load_fixture(BANK_FIXTURE)
    if data is None:
        pytest.skip(where)
    return data


FIXTURES = ["18GA/18GA_game_end_bank.json", "18GA/18GA_game_end_bankrupt.json",
            "18GA/18GA_game_end_stock_market.json"]


@pytest.fixture(scope="session", params=FIXTURES, ids=["bank", "bankrupt", "stock_market"])
def any_export(request):
    data, where = load_fixture(request.param)
    if data is None:
        pytest.skip(where)
    return data
