"""`steadlith sweep-bench`, small: the figures the issue's targets name are printed, and
the executors it compares agree."""

import re

from steadlith_core.cli.main import main
from steadlith_core.bench.sweep import synthetic_history
import pytest

pytestmark = pytest.mark.kernel_independent  # checks layers above the chunker, not its output: no numpy re-run


def test_the_bench_prints_the_pools_speed_up_and_that_the_executors_agree(capsys):
    assert main(["sweep-bench", "--commits", "4", "--chars", "3000", "--no-dask"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^1 process +[\d.]+ s wall +[\d.]+ s CPU$", out, re.M), out
    assert re.search(r"^pool, 2 jobs .* [\d.]+x faster than 1 process$", out, re.M), out
    assert "results identical across executors: True" in out


def test_the_generated_history_is_the_same_for_a_seed():
    one, again, other = synthetic_history(30, 4000, seed=7), synthetic_history(30, 4000, seed=7), \
        synthetic_history(30, 4000, seed=8)
    assert one.versions == again.versions and one.versions != other.versions
    assert len(one.versions) == 31 and one.units == 30
