"""checks.py's one rule for every number a user writes anywhere (an option, a deck's
counts, a job file, --cluster local:N, an environment variable): ASCII digits
only, a bounded length, and one line that names the value cut to a readable
length. str.isdigit() accepts '²' and full-width digits, which int() then
refuses or reads, and int() refuses more than 4300 digits."""

import pytest

from helpers import bad_input, beggar, job_file


@pytest.mark.parametrize("args, fragment", [
    (("census", "² 2J 2Q"), "cannot read '²'"),
    (("census", "８ 2J 2Q"), "cannot read '８'"),
    (("search", "--deals", "１２"), "--deals: must be a whole number"),
    (("search", "--deals", "1" + "0" * 5000), "--deals: must be a whole number"),
    (("search", "--time", "１２"), "--time: must be a number of seconds"),
    (("search", "--split", "²"), "--split: must be 'even', 'random' or a number of cards"),
    (("search", "--cluster", "local:²"), "'local:N' needs a number of workers"),
    (("play", "--seed", "٣"), "--seed: must be a whole number"),
])
def test_numbers_are_ascii_digits_of_a_bounded_length(tmp_path, args, fragment):
    line = bad_input(beggar(*args, "--archive", tmp_path / "a.sqlite") if args[0] != "play" else beggar(*args),
                     fragment)
    assert len(line) < 300, line


def test_a_job_files_numbers_and_decks(tmp_path):
    archive = tmp_path / "a.sqlite"
    census = job_file(tmp_path, "c", driver="census", extra='deck = "6 2J 2Q"\nfirst = "²"\n')
    bad_input(beggar("search", census, "--archive", archive), "'first' must be a whole number", "'²'")
    huge = job_file(tmp_path, "h", extra='deck = "' + "18 2J 2Q 2K 2A " * 70_000 + 'x"\n')
    line = bad_input(beggar("search", huge, "--archive", archive), "deck '18 2J 2Q 2K 2A", "characters)")
    assert len(line) < 300, line
    assert not archive.exists()


def test_environment_numbers_are_ascii(tmp_path):
    bad_input(beggar("search", "--deals", 10, "--archive", tmp_path / "a.sqlite",
                     env={"BEGGAR_PROGRESS_SECONDS": "６０"}), "BEGGAR_PROGRESS_SECONDS must be a number")
    bad_input(beggar("archive", "jobs", "--archive", tmp_path / "a.sqlite", env={"BEGGAR_LOCK_SECONDS": "６０"}),
              "BEGGAR_LOCK_SECONDS must be a number")
