"""The pages under docs/ print what they show: every `$` example of a page
runs, in the page's order, as the real command in a folder of the page's own,
and prints the lines the page shows under it. What depends on the machine is
read as any value, each kind named in VOLATILE: times, rates, dates and the
job ids made from them, the number of workers, a chunk or part size measured
at the start, a chunk's number (the first of its parts), the versions
installed and the OpenCL device. What an installed tool's version decides
(VERSIONED: the bytes NVRTC compiles the kernels to) is compared exactly
where the version printed is the page's. A progress line comes at a search's
end only (BEGGAR_PROGRESS_SECONDS set past any run here).
Everything else (the games, the counts, the wording) must be as shown, so a
page cannot go stale. The examples are deterministic: each search names its
seed and its budget. The sections in PAUSED are left out while they are
rewritten."""

import re
import shlex
import shutil

import pytest

from helpers import beggar
from test_readme import ROOT, _matches, _shown_runs

#: Sections of pages whose examples are not run for now, {page: [its `## `
#: heading]}: the hunt and its page are being rewritten (docs/loops.md, "The
#: hunt", and its subsections). Remove an entry to run its examples again.
PAUSED = {}

PAGES = [page for page in sorted((ROOT / "docs").glob("*.md")) if _shown_runs(page, PAUSED.get(page.name, ()))]

#: A job's id: its name, the date and time it was created, four hex digits.
JOB_ID = re.compile(r"\b([A-Za-z0-9_.-]+?)-\d{8}-\d{6}-[0-9a-f]{4}\b")

#: (pattern, what it stands for): the parts of a line that the machine's
#: speed or the clock decide.
VOLATILE = [
    (JOB_ID, r"\1-JOB"),
    (re.compile(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d(:\d\d(\.\d+)?)?(\+00:00)?"), "DATE"),
    (re.compile(r"\bin [\d,.]+ s\b"), "in T s"),
    (re.compile(r"\b[\d,.]+ (minutes?|hours?|days?|years?)\b"), "D"),      # a time at the rate measured
    (re.compile(r"[\d,.]+ (deals|tries|states|perturbations)/s\b"), r"R \1/s"),
    (re.compile(r"\bin [\d.]+ h \([\d,.]+ an hour\)"), "in T h (R an hour)"),      # a hunt's hours
    (re.compile(r"\([\d,.]+ an hour\)"), "(R an hour)"),         # a hunt's new loops an hour
    (re.compile(r"\bon \d+ workers?\b"), "on W workers"),
    (re.compile(r"\bworkers[= ]\d+"), "workers=W"),
    (re.compile(r"chunks of [\d,]+ (\w+) \(about [\d.]+ s of a core here, measured\)"),
     r"chunks of C \1 (measured)"),
    (re.compile(r"in parts of [\d,]+ (\w+) \(about [\d.]+ s of a core here, measured\)"),
     r"in parts of P \1 (measured)"),
    # A chunk is numbered by its first part, chunks are as many parts as fit
    # their time, and which chunk met a loop first is a race of the workers.
    (re.compile(r"\bchunk \d+\b"), "chunk K"),
    (re.compile(r"cuda-bindings [\d.]+, NVRTC [\d.]+"), "cuda-bindings V, NVRTC V"),     # as installed
    (re.compile(r"pyopencl [\d.]+"), "pyopencl V"),
    # An OpenCL device as the machine's OpenCL names it (PoCL names the CPU).
    (re.compile(r"(device \d+): .+ \((CPU|GPU|device), \d+ compute units, [^)]*\)"), r"\1: D (\2)"),
    # The folder a relative archive lies in: the page's own folder here, the user's there (and none
    # where the page names the archive under /tmp/, which the run here makes a relative path).
    (re.compile(r" \(in /?[\w.-]+(/[\w.-]+)*/?\)"), ""),
    (re.compile(r"(?<![\w/])/tmp/"), ""),
    # Seconds of a GPU job's two sides: "6.0 s of the GPU kernels", "checking them took 6.8 s of".
    (re.compile(r"\b\d[\d,]*(\.\d+)? s of\b"), "T s of"),
]

#: (version, figure, what it stands for): figures that an installed tool's
#: version decides, not the machine: compared exactly where the run printed
#: the version the page shows, read as any value where it printed another.
VERSIONED = [
    # NVRTC compiles the kernels to the same bytes on every machine; another NVRTC, to others.
    (re.compile(r"NVRTC [\d.]+"), re.compile(r"[\d,]+ bytes of machine code"), "B bytes of machine code"),
]


#: Seconds an example may take on a busy machine: the standard deck's hunt
#: (docs/loops.md) seats 104 loops, about three minutes of a core.
LONGEST = 900

#: No progress line but the last, however slow the machine.
QUIET = {"BEGGAR_PROGRESS_SECONDS": "100000"}


def _steady(line, masks=()):
    """`line` with what the machine decides (VOLATILE, and `masks`) read as
    any value, and its spacing (a table's columns widen with their values)
    as one space."""
    for pattern, value in [*masks, *VOLATILE]:
        line = pattern.sub(value, line)
    return " ".join(line.split())


def _versioned(shown, printed):
    """The masks of VERSIONED for what a run printed: those whose version it
    printed otherwise than the page shows it."""
    return [(figure, value) for version, figure, value in VERSIONED
            if version.findall("\n".join(shown)) != version.findall("\n".join(printed))]


def _run(words, folder, ids, shown):
    """The lines one simple command prints (standard error and output in the
    order written), run in `folder`; `ids` maps a page's job ids to this run's;
    `shown`, what the page shows of it."""
    words = [ids.get(word, word) for word in words]
    if words[0] == "cat":
        return (folder / words[1]).read_text().splitlines()
    if words[0] == "head":
        return (folder / words[-1]).read_text().splitlines()[:int(words[1].lstrip("-n"))]
    assert words[0] == "beggar", f"the pages run beggar, cat and head only: {words}"
    # A path under /tmp/ is the page's own folder (its archive, its outputs).
    words = [re.sub(r"^/tmp/", "", word) for word in words]
    if "2>" in words:           # standard error to a file the page reads next
        at = words.index("2>")
        result = beggar(*words[1:at], *words[at + 2:], cwd=folder, env=QUIET, timeout=LONGEST)
        (folder / words[at + 1]).write_text(result.stderr)
        printed = result.stdout
    else:
        result = beggar(*words[1:], cwd=folder, env=QUIET, merged=True, timeout=LONGEST)
        printed = result.stdout
    # An example may show a refusal: its one line, named by the command.
    refused = any(line.startswith(f"beggar {words[1]}:") for line in shown)
    assert result.returncode == 0 or refused, (words, result.stdout, result.stderr)
    return printed.splitlines()


def _split(line):
    """The simple commands of a `$` line, as words, split at && (with a
    comment left out, the redirection of standard error kept)."""
    words = shlex.split(line, comments=True)
    commands, current = [], []
    for word in words:
        if word == "&&":
            commands.append(current)
            current = []
        else:
            current.append(word)
    return [command for command in commands + [current] if command]


@pytest.mark.slow
@pytest.mark.parametrize("page", PAGES, ids=[page.name for page in PAGES])
def test_each_page_prints_what_it_shows(page, tmp_path):
    if page.name == "gpu.md" and _a_gpu_is_here():
        pytest.skip("docs/gpu.md shows `beggar gpu` on a machine without a GPU")
    for name in ("casella.txt", "search"):
        source = ROOT / name
        (shutil.copytree if source.is_dir() else shutil.copy)(source, tmp_path / name)
    ids = {}            # the page's job ids -> this run's, in the order they appear
    for line, shown in _shown_runs(page, PAUSED.get(page.name, ())):
        printed = []
        for words in _split(line):
            printed += _run(words, tmp_path, ids, shown)
        # The job ids the page shows, in order, are the ones this run printed.
        for page_id, run_id in zip(_ids(shown), _ids(printed)):
            ids.setdefault(page_id, run_id)
        masks = _versioned(shown, printed)
        steady_shown = [_steady(text, masks) for text in shown]
        steady_printed = [_steady(text, masks) for text in printed]
        assert _matches(steady_shown, steady_printed), (page.name, line, "\n".join(printed))


def test_the_paused_sections_are_there_and_show_examples():
    """A pause names a section that exists and has examples, so that one left
    behind (the section renamed or gone) is seen."""
    for name, headings in PAUSED.items():
        page = ROOT / "docs" / name
        assert _shown_runs(page) != _shown_runs(page, headings), (name, headings)


def test_every_example_is_where_the_pages_test_finds_it():
    """A `$` example the test would not run (indented, outside a fenced block)
    could go stale unseen: every one of the README and the pages is in a
    fenced block, but in a paused section."""
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        section, fenced = None, False
        for number, line in enumerate(page.read_text().splitlines(), 1):
            if line.startswith("```"):
                fenced = not fenced
            elif not fenced and line.startswith("## "):
                section = line[3:].strip()
            elif re.match(r"\s*\$ ", line) and not (fenced and line.startswith("$ ")):
                assert section in PAUSED.get(page.name, ()), f"{page.name}, line {number}: {line.strip()}"


def test_what_the_machine_decides_is_read_as_any_value_and_nothing_else():
    """The masks leave a deterministic figure alone: the bytes the kernels
    compile to are the page's under the page's NVRTC, any value under another."""
    shown = ["CUDA: cuda-bindings 12.9.10, NVRTC 12.9",
             "kernel: compiles for sm_90 (230,832 bytes of machine code in 0.6 s); no device was used"]
    same = [shown[0], shown[1].replace("230,832", "65,456").replace("0.6 s", "10.1 s")]
    assert _steady(shown[1], _versioned(shown, same)) != _steady(same[1], _versioned(shown, same))
    other = [shown[0].replace("12.9", "13.0"), same[1]]
    assert _steady(shown[1], _versioned(shown, other)) == _steady(other[1], _versioned(shown, other))
    assert _steady("deals    1,000,000 in 7.1 s: 140,758 deals/s on 2 workers") == \
        "deals 1,000,000 in T s: R deals/s on W workers"


def _ids(lines):
    """The job ids in `lines`, each once, in the order they first appear."""
    seen = []
    for text in lines:
        for match in JOB_ID.finditer(text):
            if match.group(0) not in seen:
                seen.append(match.group(0))
    return seen


def _a_gpu_is_here():
    try:
        from beggar.gpu import cuda
        cuda.Device()
    except Exception:       # no bindings, no driver or no device: GpuFault
        return False
    return True
