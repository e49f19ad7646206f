"""beggar archive list: the deck and hands of each game, how many of the
archive's are shown, --status and --json, the long games first; through the
command."""

import json

import pytest

from helpers import beggar, job_file


@pytest.mark.slow
def test_archive_list_shows_long_games_first_with_their_table_and_the_total(tmp_path):
    archive = tmp_path / "a.sqlite"
    # A few long 26/26 games, and a small census's loops, which would fill the old loops-first list.
    assert beggar("search", job_file(tmp_path, deals=100_000), "--archive", archive, "--quiet").returncode == 0
    census = beggar("census", "half-camicia", "--archive", archive, "--quiet")     # 16 loop deals, 1 s
    assert census.returncode == 0, census.stderr
    assert "loops    1 loop, reached from 16 loop deals\n" in census.stdout       # not "1 loops"
    every = json.loads(beggar("archive", "list", "--json", "--limit", 10 ** 6, "--archive", archive).stdout)
    statuses = {game["status"] for game in every["games"]}
    assert every["shown"] == every["total"] == len(every["games"]) and statuses == {"finished", "loop"}
    listed = beggar("archive", "list", "--limit", 3, "--archive", archive)
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert lines[0].split() == ["id", "status", "cards", "tricks", "loop", "deck", "hands", "found", "by", "deal"]
    assert all(" finished " in line and " standard  26/26 " in line for line in lines[1:4])
    assert lines[4] == f"3 of {every['total']:,} games shown, longest first (--limit N shows more)"
    loops = json.loads(beggar("archive", "list", "--status", "loop", "--json", "--archive", archive).stdout)
    assert loops["total"] == sum(game["status"] == "loop" for game in every["games"]) > 0
    assert {(game["deck"], game["players"], game["split"]) for game in loops["games"]} == {("half-camicia", 2, 10)}
    text = beggar("archive", "list", "--status", "loop", "--limit", 2, "--archive", archive).stdout.splitlines()
    assert " loop " in text[1] and "half-camicia  10/10" in text[1]
    assert text[-1].endswith("; loop: entry+period in tricks (--loops lists the loops)")
    assert json.loads(beggar("archive", "list", "--status", "disputed", "--json", "--archive", archive).stdout) \
        == {"shown": 0, "total": 0, "games": []}
