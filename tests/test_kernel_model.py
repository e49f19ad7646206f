"""benchmarks/gpu_kernel_model.py's issue model: the figures docs/gpu.md
quotes for the kernels as they are, computed again (slow: NVRTC's compile,
nvdisasm and some thousands of games). Where NVRTC or nvdisasm is missing
(the `model` extra) the test skips, saying which. And the host program
benchmarks/gpu_deal_cost.py counts, built against the kernels' headers as
they are, so that it cannot fall behind them unseen."""

import importlib.util
import re
import shutil
import subprocess
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


def test_the_deal_cost_program_builds_against_the_headers_and_plays_the_engines_games(tmp_path, monkeypatch):
    """gpu_deal_cost.c, built as gpu_deal_cost.py builds it, deals as bg_sample
    does (seed 2026, deal i of the run) and plays those deals to the engine's
    tricks; its census runs."""
    if shutil.which("cc") is None:
        pytest.skip("no C compiler (cc) to build benchmarks/gpu_deal_cost.c with")
    from beggar import engine
    from beggar.deal import Deal
    from beggar.gpu import source
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    import gpu_deal_cost
    program = gpu_deal_cost.build(tmp_path, {name: text for name, text in source.files().items()
                                             if name != "kernel.cu"})

    def run(mode):
        return [int(word) for word in subprocess.run([str(program), mode, "200"], capture_output=True,
                                                     text=True, check=True).stdout.split()]
    tricks, checksum = run("play")
    assert tricks == sum(engine.play(Deal.shuffled(2, 2026, i)).tricks for i in range(200))
    assert run("deal") == [0, checksum]
    assert run("census")[1] > 0
