"""Files the tool writes, through the real command: an output the machine
cannot take is exit 3 (a full disk), a path that names nothing is exit 2,
the claim of a running job is the archive file's, whatever name it is
reached by, never through a link planted in its place, and a job refused
leaves no archive behind."""

import os
from pathlib import Path

import pytest

from helpers import bad_input, beggar, fault, in_process, job_file, start, wait_for_chunks

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


#: Jobs refused once the archive is open (what they start from is read from it).
REFUSED = {
    "hunt": ('driver = "hunt"\ndeck = "6 2J 2Q 1K"\n', "no full loop of the 6 2J 2Q 1K deck to hunt from"),
    "perturb": ('driver = "perturb"\ndeck = "6 2J 2Q 1K"\n', "no full loop of the 6 2J 2Q 1K deck to perturb"),
    "eliminate": ('driver = "eliminate"\ndeck = "6 2J 2Q 1K"\nplayers = 3\n',
                  "no loop of the 6 2J 2Q 1K deck to search back from"),
    "bad file": ('driver = "hunt"\ndeck = "6 2J 2Q 1K"\nchunk = -1\n', "chunk"),
}


@pytest.mark.parametrize("kind", REFUSED)
def test_a_refused_job_leaves_no_archive_behind(tmp_path, kind):
    """A hunt on a deck with no loop was refused in one line, and left a new,
    empty archive (and the folders made for it) behind."""
    from beggar.archive import Archive
    text, told = REFUSED[kind]
    job = tmp_path / "job.toml"
    job.write_text(text)
    bad_input(in_process("search", job, "--archive", tmp_path / "new" / "deeper" / "a.sqlite"), told)
    assert sorted(os.listdir(tmp_path)) == ["job.toml"]
    # An archive that was there, empty, stays as it was: only one the refused job created goes.
    Archive(tmp_path / "there.sqlite").close()
    bad_input(in_process("search", job, "--archive", tmp_path / "there.sqlite"), told)
    assert sorted(os.listdir(tmp_path)) == ["job.toml", "there.sqlite"]
