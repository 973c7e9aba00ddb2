"""One fast test per fault kind: a first version is stored, then the fault answers; no fault may become a
version or crash the check."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.chaos import FAULTS, Chaos
from differ.check import check_source
from tests.conftest import Clock, make_app, one_doc

EXPECTED = {
    "slow": "failed",  # the watchdog cuts it at twice the timeout
    "server_error": "failed",
    "rate_limited": "failed",
    "dropped": "failed",
    "truncated": "failed",
    "empty": "failed",
    "error_page": "failed",  # the selector matches nothing: nothing to compare
    "login_wall": "failed",
    "redirect_loop": "failed",
    "gzip_bomb": "failed",
    "endless": "failed",
    "wrong_charset": "unchanged",
}


@pytest.fixture
def chaos() -> Iterator[Chaos]:
    c = Chaos(slow_seconds=2.0)
    yield c
    c.close()


@pytest.mark.parametrize("fault", FAULTS)
def test_a_fault_never_becomes_a_version(tmp_path: Path, chaos: Chaos, fault: str) -> None:
    clock = Clock()
    service = 'timeout = "0.5s"\nmax_bytes = "1MB"\n'
    app = make_app(
        one_doc(tmp_path, f"{chaos.base}/p/1", extra='robots = false\nselector = "article"', service=service),
        clock,
    )
    source = app.config.sources()[0]
    assert check_source(app, source).line() == "doc/canonical: new version 1 (first snapshot)"
    chaos.rates = {fault: 1.0}
    result = check_source(app, source)
    assert (result.outcome, chaos.injected[fault]) == (EXPECTED[fault], 1 if fault != "redirect_loop" else 6)
    assert [v.number for v in app.store.versions("doc/canonical")] == [1]
    chaos.rates = {}
    clock.advance(120)
    after = check_source(app, source)
    assert after.outcome == "unchanged" and len(app.store.versions("doc/canonical")) == 1
    assert app.store.verify().ok
