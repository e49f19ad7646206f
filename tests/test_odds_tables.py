"""beggar stats of other tables: the targets and the plot's reference lines
come from the job's deck and table, a census predicts nothing; through the
command."""

import json

import pytest

from helpers import beggar, job_file, job_id


@pytest.mark.slow
def test_the_odds_of_a_three_player_job_are_told_against_its_table_s_known_record(tmp_path):
    archive = tmp_path / "a.sqlite"
    run = beggar("search", job_file(tmp_path, deals=200_000, chunk=50_000, min_cards=1000,
                                    extra='players = 3\nextend_cards = 0\n'), "--archive", archive, "--quiet")
    assert run.returncode == 0, run.stderr
    name = job_id(run.stdout)
    best = int(run.stdout.split("best     ")[1].split()[0])
    assert best < 4266      # the shipped record of the table (results/three-players-4266.json)
    out = beggar("stats", name, "--tail-from", 1000, "--archive", archive)
    assert out.returncode == 0, out.stderr
    assert "8345" not in out.stdout and "5000" not in out.stdout.split("targets")[1]
    assert ("targets  round lengths below the longest known game of this table, three-players-4266 (the record "
            "shipped with beggar), 4266 cards, and one card past it") in out.stdout
    figures = json.loads(beggar("stats", name, "--tail-from", 1000, "--json", "--archive", archive).stdout)
    assert [row["cards"] for row in figures["expected"]] == [2000, 3000, 4000, 4267]
    assert [ref["cards"] for ref in figures["references"]] == [4266]
    pytest.importorskip("matplotlib", reason="the plot extra: pip install '.[plot]'")
    assert beggar("stats", name, "--tail-from", 1000, "--plot", tmp_path / "odds.png", "--archive",
                  archive).returncode == 0
    assert (tmp_path / "odds.png").stat().st_size > 10_000


@pytest.mark.slow
def test_a_census_predicts_nothing(tmp_path):
    archive = tmp_path / "a.sqlite"
    census = beggar("census", "half-camicia", "--archive", archive, "--quiet")
    assert census.returncode == 0, census.stderr
    out = beggar("stats", job_id(census.stdout), "--archive", archive)
    assert out.returncode == 0, out.stderr
    assert "nothing is predicted from them" in out.stdout and "years" not in out.stdout and "deals expected" not in out.stdout
    figures = json.loads(beggar("stats", job_id(census.stdout), "--json", "--archive", archive).stdout)
    assert figures["exhaustive"] is True and figures["expected"] == [] and figures["tail"] is None
