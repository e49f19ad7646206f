"""benchmarks/gpu_kernel_model.py's issue model: the figures docs/gpu.md
quotes for the kernels as they are, computed again (slow: NVRTC's compile,
nvdisasm and some thousands of games). Where NVRTC or nvdisasm is missing
(the `model` extra) the test skips, saying which."""

import importlib.util
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _model():
    spec = importlib.util.spec_from_file_location("gpu_kernel_model", ROOT / "benchmarks" / "gpu_kernel_model.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _quoted():
    """{shape: (warp-instructions a deal, SIMT)} of this kernel's rows of the
    issue model's table on the GPU page."""
    rows = {}
    for line in (ROOT / "docs" / "gpu.md").read_text().splitlines():
        found = re.match(r"(\S.*?)\s{2,}\d+\s+[\d.]+\s+this\s+([\d,]+)\s+.*?\s([\d.]+)\s+[\d.]+ / ", line)
        if found:
            rows[found.group(1)] = (int(found.group(2).replace(",", "")), float(found.group(3)))
    return rows


@pytest.mark.slow
def test_the_issue_model_gives_the_figures_the_gpu_page_quotes_for_this_kernel():
    model = _model()
    from beggar.decks import STANDARD
    from beggar.gpu import cuda
    from beggar.gpu.engine import ring_of, steps_between
    try:
        version = cuda.nvrtc_version()
    except cuda.GpuFault as error:
        pytest.skip(f"no NVRTC to compile the kernels with ({error}); pip install '.[model]'")
    nvdisasm = model.tool("nvdisasm")
    if nvdisasm is None:
        pytest.skip("no nvdisasm to read the kernels' machine code with; pip install '.[model]'")
    quoted = _quoted()
    assert set(quoted) == {name for name, _, _ in model.SHAPES}, quoted
    ring = ring_of(STANDARD)
    costs, _, _ = model.sample_costs(model.kernel_sources(), nvdisasm, "sm_90", ring,
                                     cuda.cards_of(STANDARD.total))
    # The standard deck, on fewer games than the page's (its figure within
    # what a smaller sample moves it; a change to the kernel moves it more).
    games = model.Games(STANDARD, None, 8192)
    issue = model.replay(games, 0, 8192, costs, cuda.block_threads(ring), steps_between(STANDARD, None),
                         STANDARD, False)
    each, simt = issue.instructions / 8192, issue.threads_issued / issue.instructions / model.LANES
    page, page_simt = quoted["standard 26/26"]
    assert abs(each / page - 1) < 0.04 and abs(simt - page_simt) < 0.03, (version, each, simt, page, page_simt)
