"""What a new user tripped on (issue 28, the smaller ones), each through the real command."""

import json
import re
from pathlib import Path

import pytest

from beggar import Deal, engine, loops
from beggar.archive import Archive
from beggar.census import count
from beggar.cycle import key_hands
from beggar.savefile import load
from beggar.search.drivers.factory import start_keys
from helpers import CASELLA, bad_input, beggar, job_id, known_loops

ROOT = Path(__file__).resolve().parents[1]


def test_every_page_the_package_cites_is_in_the_project():
    cited = []
    for path in sorted((ROOT / "src" / "beggar").rglob("*")):
        if path.suffix not in (".py", ".pyx", ".pxd", ".pyi", ".h", ".cu"):
            continue
        for page in re.findall(r"(?<![\w/.:-])((?:[\w-]+/)*[\w-]+\.md)\b", path.read_text()):
            if not (ROOT / page).is_file():
                cited.append(f"{path.relative_to(ROOT)} cites {page}")
    assert not cited, cited


# ---------------------------------------------------------------- loop deals and loops

CENSUS_DECK = "7 2J 1Q 1K 1A"   # 47,520 deals: 84 loop deals, into 5 loops


@pytest.fixture(scope="module")
def census_run(tmp_path_factory):
    archive = tmp_path_factory.mktemp("census") / "a.sqlite"
    run = beggar("census", CENSUS_DECK, "--workers", 2, "--archive", archive, "--quiet")
    assert run.returncode == 0, run.stderr
    return archive, run, job_id(run.stdout)


@pytest.mark.slow
def test_loop_deals_and_loops_are_two_words_everywhere(census_run):
    archive, run, job = census_run
    block = engine.census(0, count(CENSUS_DECK), CENSUS_DECK)
    deals, distinct = block.statuses["loop"], len({key for _, _, _, key in block.loops})
    assert deals > distinct >= 1
    # The run's summary counts loop deals ...
    assert f"; {deals} loop deals\n" in run.stdout
    # ... the table both, by their names ...
    assert f"loops    {distinct} loop{'s' if distinct > 1 else ''}, reached from {deals} loop deals\n" in run.stdout
    assert f"reached from {deals} loop deals" in beggar("archive", "census", job, "--archive", archive).stdout
    # ... and the jobs the loops (distinct, found first), in text and in JSON.
    listed = beggar("archive", "jobs", "--archive", archive).stdout
    assert f"and {distinct} loop{'s' if distinct > 1 else ''} kept" in listed
    assert json.loads(beggar("archive", "jobs", "--json", "--archive", archive).stdout)[0]["loops"] == distinct
    stats = beggar("stats", job, "--archive", archive).stdout
    assert f", {deals} loop deals\n" in stats and " loops\n" not in stats


# ---------------------------------------------------------------- stats

@pytest.mark.slow
def test_stats_of_a_census_prints_its_counts_and_the_rate_it_ran_at(census_run):
    archive, run, job = census_run
    stats = beggar("stats", job, "--archive", archive)
    assert stats.returncode == 0, stats.stderr
    out = stats.stdout
    assert "Wilson" not in out and "nothing to predict" not in out and "targets" not in out
    assert "counts   exact: a census plays every deal of its block once" in out
    assert re.search(r"^ cards +games >= L +share$", out, re.M)
    # Rows scaled to the deck's lengths: each counts games but the last, the first past the longest.
    rows = [line.split() for line in out[out.index("games >= L"):out.index("counts   exact")].splitlines()[1:-1]]
    assert len(rows) >= 4 and all(int(games.replace(",", "")) for _, games, _ in rows[:-1]) and rows[-1][1] == "0"
    # One chunk was played, on one worker, whatever workers the job had.
    assert "(1 worker at the rate their chunks were played)" in out


@pytest.mark.slow
def test_stats_of_a_three_player_job_aims_at_the_table_s_known_record(tmp_path):
    archive = tmp_path / "a.sqlite"
    run = beggar("search", ROOT / "search" / "three-players.toml", "--deals", 20_000, "--workers", 1,
                 "--min-cards", 100_000, "--seed", 5, "--archive", archive, "--quiet")
    assert run.returncode == 0, run.stderr
    stats = beggar("stats", job_id(run.stdout), "--tail-from", 500, "--archive", archive)
    assert stats.returncode == 0, stats.stderr
    assert "three-players-4266 (the record shipped with beggar), 4266 cards" in stats.stdout
    targets = [int(line.split()[0]) for line in stats.stdout.split("targets  ")[1].splitlines()[2:]]
    assert targets[-2:] == [4000, 4267]
    assert "correlated walks" not in stats.stdout


@pytest.mark.slow
def test_stats_of_a_climb_says_its_deals_are_correlated_walks(tmp_path):
    archive = tmp_path / "a.sqlite"
    run = beggar("search", ROOT / "search" / "climb.toml", "--deals", 20_000, "--workers", 1, "--seed", 2,
                 "--archive", archive, "--quiet")
    assert run.returncode == 0, run.stderr
    stats = beggar("stats", job_id(run.stdout), "--tail-from", 500, "--archive", archive)
    assert stats.returncode == 0, stats.stderr
    assert "a climb's deals are correlated walks" in stats.stdout
    assert "not of random deals" in stats.stdout


# ---------------------------------------------------------------- eliminate

def test_both_loop_drivers_start_from_the_shipped_loops(tmp_path):
    shipped = loops.of_deal(load(ROOT / "results" / "loop-52-balanced.json")[0].deal).hex
    casella = loops.of_deal(CASELLA).hex
    with Archive(tmp_path / "a.sqlite") as archive:
        for players in (2, 3, 4):       # perturb's two, eliminate's three and four
            assert {shipped, casella} <= set(start_keys(archive, "standard", players))
        # A loop of more players than the table is no start: backward play only adds players.
        three = loops.of_deal(Deal.parse("---/-QJ/--J/J-"))     # a loop of 3 players, one out at a table of 4
        with archive.transaction():
            archive.add_loop(three)
        assert len(key_hands(three.hex)) == three.players == 3
        assert three.hex not in start_keys(archive, "7 3J 1Q", 2)
        assert three.hex in start_keys(archive, "7 3J 1Q", 3) == start_keys(archive, "7 3J 1Q", 4)


@pytest.mark.slow
def test_an_eliminate_job_tells_its_bound_and_no_seed(tmp_path):
    job = tmp_path / "e.toml"
    job.write_text('name = "e"\ndriver = "eliminate"\ndeck = "standard"\nplayers = 3\nworkers = 1\n'
                   "chunk = 1000\nbasin_seconds = 5.0\n")
    run = beggar("search", job, "--archive", tmp_path / "a.sqlite", env={"BEGGAR_PROGRESS_SECONDS": "1"})
    assert run.returncode == 0, run.stderr
    first = run.stderr.splitlines()[0]
    assert "seed" not in first and "plays these" not in first
    # Each start loop's search is bounded; the bound is said as one, not as a budget.
    starts = len(known_loops("standard"))
    assert f"states searched of at most {starts * 1000:,} (1,000 a loop, {starts} start loops)" in run.stderr
    assert f" of {starts * 1000:,} states (" not in run.stderr
    # A progress line counts loop deals, under that name.
    assert ", loop_deals 0, " in run.stderr and " loops " not in run.stderr
    assert "done (every start loop searched)" in run.stdout and "budget spent" not in run.stdout
    listed = beggar("archive", "jobs", "--archive", tmp_path / "a.sqlite").stdout.splitlines()
    assert re.fullmatch(rf"  played [\d.]+K? states \(at most {starts:.1f}K\); best -", listed[2]), listed


# ---------------------------------------------------------------- the views' forms

@pytest.mark.slow
def test_archive_jobs_fits_an_80_column_terminal_and_wide_keeps_the_table(census_run):
    archive, run, job = census_run
    listed = beggar("archive", "jobs", "--archive", archive)
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert lines[0] == f"{job}  done" and all(len(line) <= 80 for line in lines), lines
    assert lines[2].startswith("  played 47.5K of 47.5K deals; best ") and re.fullmatch(r"  [\d,]+ games and 5 loops kept", lines[3])
    assert re.fullmatch(r"  started \d{4}-\d\d-\d\d \d\d:\d\d, last ran \d{4}-\d\d-\d\d \d\d:\d\d \(UTC\)", lines[4])
    wide = beggar("archive", "jobs", "--wide", "--archive", archive).stdout.splitlines()
    assert wide[0].split()[:4] == ["job", "driver", "table", "state"] and wide[1].startswith(job)
    # One form of a time in every text view: no ISO 'T' between date and time.
    game = json.loads(beggar("archive", "list", "--json", "--archive", archive).stdout)["games"][0]["id"]
    shown = beggar("archive", "show", game, "--archive", archive).stdout
    assert re.search(r"^found    \d{4}-\d\d-\d\d \d\d:\d\d UTC by job ", shown, re.M), shown


def test_archive_jobs_cells_are_narrow():
    from beggar.cli import archive as archive_cli
    row = {"id": "sample-20261201-114623-2c7b", "driver": "sample", "table": "standard deck, 2 players, 26/26",
           "state": "stopped", "unit": "deals", "played": 9_200_000, "budget": None,
           "best": {"cards": 4537, "tricks": 617, "game": 2, "deal": "", "driver": "sample"},
           "games": 8, "loops": 0, "started": "2026-12-01T11:46:42+00:00", "last_ran": "2026-12-01T11:47:03+00:00",
           "resume": "beggar search --resume sample-20261201-114623-2c7b"}
    assert archive_cli._played(row) == "9.2M deals" and archive_cli._best(row) == "4537 (game 2)"


def test_a_count_has_one_form_in_every_text_view():
    from beggar.cli import format as text
    assert [text.number(n) for n in (13622, 9_999_999, 3.37e10, 2.6e17)] == ["13,622", "9,999,999", "3.4e10",
                                                                             "2.6e17"]
    assert text.when("2026-12-01T20:12:33+00:00") == "2026-12-01 20:12"
    page = (ROOT / "src" / "beggar" / "cli" / "page.py").read_text()
    assert ".3g}\", f\"{r['deals_low']" not in page and "[:16]" not in page


# ---------------------------------------------------------------- verify, savefile, Lengths

@pytest.mark.slow
def test_verify_tells_a_loop_from_a_finished_game_and_dates_only_what_has_a_date(tmp_path):
    shipped = beggar("verify", ROOT / "results" / "loop-52-balanced.json", ROOT / "results" / "camicia-3279.json")
    assert shipped.returncode == 0, shipped.stderr
    head, loop, finished = shipped.stdout.splitlines()[:3]
    assert head.split() == ["deal", "year", "status", "expected", "compiled", "reference"]
    assert loop.split()[1:4] == ["2026", "loop", "469/66"] and finished.split()[1:3] == ["2026", "finished"]
    own = tmp_path / "mine.json"
    own.write_text(json.dumps({"deal": CASELLA, "expected": {"status": "loop", "cards": 474, "tricks": 66}}))
    mine = beggar("verify", own)
    assert mine.returncode == 0, mine.stderr
    assert mine.stdout.splitlines()[0].split() == ["deal", "status", "expected", "compiled", "reference"]
    assert mine.stdout.splitlines()[1].split()[:4] == ["game", "1", "loop", "474/66"]


def test_to_json_takes_a_deal_and_its_outcome_as_the_readme_says():
    import beggar as package
    from beggar import savefile
    deal = package.Deal.parse(CASELLA)
    outcome = package.play(deal)
    [game] = savefile.parse(savefile.to_json(deal, outcome), "casella.json")
    assert game.deal == deal and game.expected["cards"] == 474 and game.expected["status"] == "loop"
    assert savefile.to_json(CASELLA, outcome) == savefile.to_json(savefile.SavedGame(deal), outcome)
    assert savefile.to_text(deal).splitlines()[1:] == CASELLA.split("/")
    with pytest.raises(TypeError, match="SavedGame, a Deal or a deal in record notation"):
        savefile.to_json(42)


def test_lengths_has_a_short_repr():
    from beggar.lengths import Lengths
    histogram = engine.sample_best(1000, seed=1, min_cards=10 ** 6)[2]
    text = repr(histogram)
    assert len(text) < 80 and text.startswith("Lengths(1,000 games, the longest ") and text.endswith(" cards)")
    assert repr(Lengths()) == "Lengths(0 games)" and repr(Lengths.of([5000])) == \
        "Lengths(1 game, the longest 5000 to 5099 cards)"


# ---------------------------------------------------------------- errors and help

@pytest.mark.slow
def test_archive_census_of_no_such_job_says_so(tmp_path):
    archive = tmp_path / "a.sqlite"
    assert beggar("search", "--deals", 1000, "--workers", 1, "--archive", archive, "--quiet").returncode == 0
    bad_input(beggar("archive", "census", "nojob", "--archive", archive), "no census job 'nojob' in it")


def test_an_unknown_engine_from_the_environment_names_the_variable(tmp_path):
    line = bad_input(beggar("play", CASELLA, env={"BEGGAR_ENGINE": "nonsense"}),
                     "unknown engine 'nonsense' (from the environment variable BEGGAR_ENGINE)")
    assert "compiled, reference" in line
    bad_input(beggar("search", "--deals", 1000, "--archive", tmp_path / "a.sqlite", env={"BEGGAR_ENGINE": "nonsense"}),
              "the environment variable BEGGAR_ENGINE must be one of compiled, reference")
    assert not (tmp_path / "a.sqlite").exists()


def test_search_help_names_every_driver_and_its_options_table():
    from beggar.search import drivers
    text = " ".join(beggar("search", "--help").stdout.split())
    for driver in drivers.ALL:
        assert re.search(rf"\b{driver.name}\b", text.split("driver (")[1].split(")")[0]), driver.name
        if driver.options:
            assert f"[{driver.options}]" in text


@pytest.mark.slow
def test_the_report_page_gives_a_census_its_counts_in_the_text_views_forms(census_run, tmp_path):
    archive, run, job = census_run
    page = tmp_path / "report.html"
    made = beggar("archive", "report", page, "--job", job, "--archive", archive)
    assert made.returncode == 0, made.stderr
    html = page.read_text()
    assert "95 % interval" not in html and "nothing is predicted from them" in html
    assert not re.search(r"\d{4}-\d\d-\d\dT\d\d:\d\d", html)       # times as every text view writes them
