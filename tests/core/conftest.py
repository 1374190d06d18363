"""Core test fixtures and markers (the Hypothesis profiles are in tests/conftest.py)."""


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "bench: a quick smoke run of `steadlith bench` (--repeat 1, small file); timings not asserted"
    )
    # CI runs tests/core a second time with the numpy fallback forced (README's test command).
    # That second run is for tests whose outcome could differ between the kernels; these two
    # markers say which tests it can skip.
    config.addinivalue_line(
        "markers", "kernel_independent: checks a layer above the chunker (sweep, lab, CLI messages, git, import "
                   "layers) against the same library or none; which kernel chunks cannot change its outcome, and "
                   "test_kernels and the golden vectors prove the kernels agree. Not re-run on numpy."
    )
    config.addinivalue_line(
        "markers", "both_kernels: runs on every built kernel itself (the text_kernel fixture); set automatically. "
                   "Not re-run on numpy."
    )


def pytest_collection_modifyitems(config, items):
    for item in items:
        if "text_kernel" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.both_kernels)


import pytest  # noqa: E402
from collections import Counter  # noqa: E402


@pytest.fixture
def count_calls(monkeypatch):
    """count_calls(module, names) -> a Counter of the calls, by name, of those functions
    of `module` from then on (the test's end puts them back): which stages a change re-ran."""

    def count(module, names) -> Counter:
        calls: Counter[str] = Counter()
        for name in names:
            original = getattr(module, name)

            def counted(*args, _original=original, _name=name, **kwargs):
                calls[_name] += 1
                return _original(*args, **kwargs)

            monkeypatch.setattr(module, name, counted)
        return calls

    return count


@pytest.fixture(scope="module", params=None)
def text_kernel(request):
    """Runs a module once per text kernel built here ("c" and "numpy"): the default
    pipeline's document cache is cleared on each switch, so no result made by one
    kernel answers a test of the other."""
    from steadlith_core import kernel
    from steadlith_core.pipeline import DEFAULT_PIPELINE

    with kernel.using(request.param):
        DEFAULT_PIPELINE.clear()
        yield request.param
    DEFAULT_PIPELINE.clear()


def pytest_generate_tests(metafunc):
    if "text_kernel" in metafunc.fixturenames:
        from steadlith_core.kernel import KERNELS

        metafunc.parametrize("text_kernel", KERNELS, indirect=True, scope="module")
