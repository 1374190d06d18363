"""Core test fixtures, and the both_kernels mark set on text_kernel users (the Hypothesis
profiles are in tests/conftest.py)."""


# The markers (bench, kernel_independent, both_kernels) are registered in pyproject.toml,
# where --strict-markers sees them whichever directory is run.


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

    def count(module, names, calls: "Counter[str] | None" = None) -> Counter:
        """`calls`: a Counter to add to (stages of several modules in one)."""
        calls = Counter() if calls is None else calls
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
    from steadlith_core.kernel import select as kernel
    from steadlith_core.chunking.pipeline import DEFAULT_PIPELINE

    with kernel.using(request.param):
        DEFAULT_PIPELINE.clear()
        yield request.param
    DEFAULT_PIPELINE.clear()


def pytest_generate_tests(metafunc):
    if "text_kernel" in metafunc.fixturenames:
        from steadlith_core.kernel.select import KERNELS

        metafunc.parametrize("text_kernel", KERNELS, indirect=True, scope="module")
