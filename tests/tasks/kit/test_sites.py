"""The one site-search loop: sites in order, cheap rejections with reasons, a fixed number of
builds, and the reason it gave up."""

from __future__ import annotations

import pytest

from avalon.tasks.kit import ImpossibleWorldError
from avalon.tasks.kit.sites import build_at_first_fitting_site


def _search(sites, *, misfits=(), failing_builds=(), max_builds=3):
    """Runs the search over ``sites``; returns (result or the error, the log of calls in order)."""
    log = []

    def fit(site):
        log.append(f"fit {site}")
        if site in misfits:
            return f"site {site} is too steep"

        def build():
            log.append(f"build {site}")
            if site in failing_builds:
                raise ImpossibleWorldError(f"the world at {site} hides the food")
            return f"world at {site}"

        return build

    try:
        return build_at_first_fitting_site(sites, fit, max_builds=max_builds, failure="test: no site fits"), log
    except ImpossibleWorldError as error:
        return error, log


def test_the_first_site_that_fits_and_builds_wins_and_builds_follow_their_fit_at_once():
    result, log = _search([1, 2, 3, 4, 5], misfits={1, 3}, failing_builds={2})
    assert result == "world at 4"
    assert log == ["fit 1", "fit 2", "build 2", "fit 3", "fit 4", "build 4"]


def test_the_search_gives_up_after_a_fixed_number_of_failed_builds():
    error, log = _search(range(10), misfits={0}, failing_builds=set(range(10)), max_builds=3)
    assert isinstance(error, ImpossibleWorldError)
    assert log == ["fit 0", "fit 1", "build 1", "fit 2", "build 2", "fit 3", "build 3"]
    assert str(error) == "test: no site fits; last: the world at 3 hides the food"


def test_running_out_of_sites_names_the_last_reason_or_none():
    error, _ = _search([1, 2], misfits={1, 2})
    assert str(error) == "test: no site fits; last: site 2 is too steep"
    error, log = _search([])
    assert str(error) == "test: no site fits" and log == []


def test_the_sites_are_taken_lazily():
    def sites():
        yield 1
        raise AssertionError("the search read past the site that fitted")

    assert _search(sites())[0] == "world at 1"


@pytest.mark.parametrize("max_builds", [0, -1, 1.5, True, None])
def test_a_bad_number_of_builds_is_refused(max_builds):
    with pytest.raises(ValueError, match="max_builds"):
        build_at_first_fitting_site([1], lambda site: "never", max_builds=max_builds, failure="test")
