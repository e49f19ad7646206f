"""benchmarks/gpu_kernel_model.py's issue model: the figures docs/gpu.md
quotes for the kernels as they are, computed again (slow: NVRTC's compile,
nvdisasm and some thousands of games), its control-flow graph of the SASS,
and its agreement with benchmarks/gpu_sass_walk.py, the lane-by-lane walk
of one version's SASS (checked in, so the walk itself needs no NVRTC).
Where NVRTC or nvdisasm is missing (the `model` extra) a test skips, saying
which. And the host program
benchmarks/gpu_deal_cost.py counts, built against the kernels' headers as
they are, so that it cannot fall behind them unseen."""

import importlib.util
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _benchmark(name):
    """The module of benchmarks/`name`.py (benchmarks/ is no package)."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _model():
    return _benchmark("gpu_kernel_model")


def _tools(model):
    """(NVRTC's version, nvdisasm's path) to compile and read the kernels
    with; the test skips where either is missing."""
    from beggar.gpu import cuda
    try:
        version = cuda.nvrtc_version()
    except cuda.GpuFault as error:
        pytest.skip(f"no NVRTC to compile the kernels with ({error}); pip install '.[model]'")
    nvdisasm = model.tool("nvdisasm")
    if nvdisasm is None:
        pytest.skip("no nvdisasm to read the kernels' machine code with; pip install '.[model]'")
    return version, nvdisasm


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
    version, nvdisasm = _tools(model)
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


def _walk():
    return _benchmark("gpu_sass_walk")


def test_the_control_flow_graph_of_the_walked_sass_ends_its_blocks_at_branches_and_starts_them_at_labels():
    """gpu_kernel_model.basic_blocks on the SASS checked in beside the walk:
    the blocks cover the code end to end, every branch's target and every
    convergence region's end (a BSSY's label) starts one, and the trick's
    exchange loop is one block of 21 instructions that branches back to itself."""
    model = _model()
    instructions, labels = model.read_sass((ROOT / "benchmarks" / "gpu_sass_walk.sass").read_text())["bg_sample"]
    blocks = model.basic_blocks(instructions, labels)
    assert [b.first for b in blocks] == [0] + [b.last + 1 for b in blocks[:-1]]
    assert blocks[-1].last == len(instructions) - 1
    starts = {instructions[b.first].address for b in blocks}
    assert {t for b in blocks for t in b.targets} <= starts
    regions = [re.search(r"BSSY B\d+, `\((\.L_x_\d+)", i.text) for i in instructions]
    assert {labels[r.group(1)] for r in regions if r} <= starts
    for b in blocks:
        last = instructions[b.last].text
        assert b.falls == (not re.match(r"(BRA|EXIT|RET)\b", last)), last
    loops = [b for b in blocks if instructions[b.first].address in b.targets]
    assert 21 in [b.last - b.first + 1 for b in loops], loops


def test_the_walk_reads_every_branch_a_block_of_standard_deals_takes():
    """benchmarks/gpu_sass_walk.py on the SASS checked in (no NVRTC needed):
    a block's lanes walk every round of 1,024 deals to the kernel's end without
    meeting a branch BRANCHES does not read, and count about what a deal
    issues (the issue model's 400 or so)."""
    each, active = _walk().walk(1024)
    assert 350 < each < 500 and 8 < active < 32, (each, active)


@pytest.mark.slow
def test_the_issue_model_agrees_with_the_lane_by_lane_walk_of_its_sass_within_2_percent():
    """The issue model of the version gpu_sass_walk.py walks (its commit's
    sources, compiled again), and the walk, on the same 4,096 standard deals
    in one block: within 2 %. Skips where NVRTC or nvdisasm is missing, where
    git cannot show that commit, or where this NVRTC compiles it to other code
    than the code walked."""
    model, walker = _model(), _walk()
    from beggar.decks import STANDARD
    from beggar.gpu import cuda
    from beggar.gpu.engine import ring_of, steps_between
    version, nvdisasm = _tools(model)
    commit = walker.COMMIT
    try:
        texts = model.kernel_sources(commit)
    except SystemExit as error:
        pytest.skip(f"git cannot show the walked version {commit} ({error})")
    ring = ring_of(STANDARD)
    cubin = cuda.compile_program("sm_90", ring, ["-lineinfo"], cuda.cards_of(STANDARD.total), texts)[0]
    instructions, labels = model.read_sass(model.disassemble(nvdisasm, cubin))["bg_sample"]
    walked, _ = model.read_sass((ROOT / "benchmarks" / "gpu_sass_walk.sass").read_text())["bg_sample"]
    if [(i.address, i.text) for i in instructions] != [(i.address, i.text) for i in walked]:
        pytest.skip(f"NVRTC {version} compiles {commit} to other code than the code walked")
    costs, _ = model.part_costs(instructions, labels, model.part_spans(texts))
    games = model.Games(STANDARD, None, 4096)
    issue = model.replay(games, 0, 4096, costs, cuda.block_threads(ring), steps_between(STANDARD, None),
                         STANDARD, False)
    each, _ = walker.walk(4096)
    assert abs(issue.instructions / 4096 / each - 1) < 0.02, (issue.instructions / 4096, each)


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


def test_the_device_check_reads_nsight_computes_figures_a_deal_beside_the_model(tmp_path):
    """benchmarks/ncu_figures.py on a launch's CSV as ncu --csv writes it (its
    own lines first, values with thousands separators): a deal's worth of each
    metric, beside the model's figures on the GPU page."""
    quoted = _quoted()["standard 26/26"]
    rows = [("smsp__inst_executed.sum", "inst", "8,830,058,496"),
            ("smsp__thread_inst_executed_per_inst_executed.ratio", "", "16.96"),
            ("sm__warps_active.avg.pct_of_peak_sustained_active", "%", "35.40"),
            ("sm__cycles_elapsed.avg.per_second", "cycle/nsecond", "1.75"),
            ("gpu__time_duration.sum", "nsecond", "11,184,810")]
    head = '"ID","Kernel Name","Section Name","Metric Name","Metric Unit","Metric Value"'
    lines = ["==PROF== Connected to process 4242", head]
    lines += [f'"0","bg_sample","Command line profiler metrics","{name}","{unit}","{value}"'
              for name, unit, value in rows]
    csv = tmp_path / "ncu.csv"
    csv.write_text("\n".join(lines) + "\n")
    printed = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "ncu_figures.py"), str(csv), str(1 << 24)],
                             capture_output=True, text=True, check=True).stdout
    assert f"warp-instructions executed a deal    526.3   the model (docs/gpu.md) {quoted[0]}" in printed
    assert f"SIMT efficiency                       0.53   the model {quoted[1]:.2f}" in printed
    assert "achieved occupancy                   35.4 %" in printed
    assert "deals a second (profiled)            1.5e+09" in printed


def test_the_device_check_fits_its_steps_in_its_budget():
    """gpu_check.sh's steps' caps add up to no more than its budget, so that
    none is cut short by the ones before it."""
    script = (ROOT / "benchmarks" / "gpu_check.sh").read_text()
    budget = int(re.search(r"BEGGAR_CHECK_SECONDS:-(\d+)", script).group(1))
    caps = [int(seconds) for seconds in re.findall(r'^\s*step "[^"]+" (\d+) ', script, re.MULTILINE)]
    assert len(caps) == 8 and sum(caps) <= budget, (caps, budget)
