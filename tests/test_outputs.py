"""Files the tool writes, through the real command: an output the machine
cannot take is exit 3 (a full disk), a path that names nothing is exit 2,
and the claim of a running job is the archive file's, whatever name it is
reached by, never through a link planted in its place."""

import os
from pathlib import Path

import pytest

from helpers import bad_input, beggar, fault, job_file, start, wait_for_chunks

FULL = Path("/dev/full")
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def census_archive(tmp_path_factory):
    path = tmp_path_factory.mktemp("out") / "a.sqlite"
    run = beggar("census", "6 2J 1Q 1K", "--chunk", 1000, "--workers", 1, "--archive", path, "--quiet")
    assert run.returncode == 0, run.stderr
    job = next(line.split()[1].rstrip(":") for line in run.stdout.splitlines() if line.startswith("job "))
    return path, job


@pytest.mark.slow
@pytest.mark.skipif(not FULL.exists(), reason="no /dev/full on this system")
def test_an_output_on_a_full_disk_is_a_fault(census_archive):
    path, job = census_archive
    fault(beggar("archive", "export", 1, FULL, "--archive", path), "/dev/full: cannot write", "No space left")
    fault(beggar("archive", "report", FULL, "--archive", path), "/dev/full: cannot write", "No space left")
    pytest.importorskip("matplotlib", reason="the plot extra: pip install '.[plot]'")
    # Every --plot of the command (cli/plot.py), each a one-line fault and no "plot written".
    for command in (("archive", "census", job, "--archive", path), ("stats", job, "--archive", path),
                    ("replay", ROOT / "casella.txt")):
        result = beggar(*command, "--plot", FULL)
        fault(result, "--plot /dev/full: cannot write", "No space left")
        assert "plot written" not in result.stdout, result


@pytest.mark.slow
def test_an_empty_plot_name_is_refused(census_archive):
    path, job = census_archive
    bad_input(beggar("stats", job, "--plot", "", "--archive", path), "--plot: name a file")
    refused = beggar("archive", "census", job, "--plot", "", "--archive", path)
    bad_input(refused, "--plot: name a file")
    assert refused.stdout == ""         # refused before any work, as every --plot


@pytest.mark.slow
def test_the_claim_is_the_files_not_the_names(tmp_path):
    archive = tmp_path / "archive.sqlite"
    link = tmp_path / "link.sqlite"
    link.symlink_to(archive)
    job = start("search", job_file(tmp_path, deals=0, chunk=200_000), "--archive", archive, "--quiet")
    try:
        name = wait_for_chunks(archive, 1, job)
        fault(beggar("search", "--resume", name, "--archive", link, "--quiet"),
              f"job {name} is running in another process")
    finally:
        job.terminate()
        job.communicate(timeout=60)


def test_a_link_planted_as_the_running_file_is_not_followed(tmp_path):
    archive = tmp_path / "archive.sqlite"
    target = tmp_path / "elsewhere"
    os.symlink(target, f"{archive}-running")
    fault(beggar("search", "--deals", 1000, "--archive", archive, "--quiet"),
          "a link stands where the file that marks running jobs goes")
    assert not target.exists() and not os.path.lexists(tmp_path / "elsewhere")
