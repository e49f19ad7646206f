"""Finds that carry their story: exports and saved games with a name and a
provenance, the project's shipped finds known like the published loops,
saved games written out of git's sight, the README's casella.txt, a saved
game from a deal and its outcome (savefile.to_json), and beggar verify of
several files."""

import hashlib
import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from beggar import Deal, finds, loops, play
from beggar.archive import Archive
from beggar.rules import Rules
from beggar.savefile import SavedGame, load, mismatches, one_line, parse, to_json, to_text
from beggar.search.announce import TOLD, announcement, summary_lines, tell
from beggar.search.runner import Summary
from engines import agree
from helpers import CASELLA, beggar, fault, job_file, known_loops

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_an_export_carries_its_provenance_and_a_name_that_means_something(tmp_path):
    archive = tmp_path / "a.sqlite"
    assert beggar("search", job_file(tmp_path, deals=200_000, extra="extend_cards = 1500\n"), "--archive", archive,
                  "--quiet").returncode == 0
    with Archive(archive) as opened:
        child = next(game for game in opened.games() if game["driver"] == "extension")
    saved = tmp_path / "find.json"
    assert beggar("archive", "export", child["id"], saved, "--archive", archive).returncode == 0
    entry = json.loads(saved.read_text())
    assert entry["name"].startswith(f"a {child['cards']}-card finished game of the standard deck (26/26), found by "
                                    f"family extension in job {child['job']} on ")
    story = entry["provenance"]
    assert (story["job"], story["driver"], story["seed"], story["chunk"], story["chunk_size"]) == \
        (child["job"], "extension", 3, child["chunk"], 20_000)
    assert story["parent"]["game"] == child["parent"] and story["engines"]["agree"] is True
    assert story["engines"]["reference"]["cards"] == child["cards"] and story["deck"] == "standard"
    assert load(str(saved))[0].provenance == story
    replayed = beggar("replay", saved)
    assert replayed.returncode == 0 and "expected OK, as saved" in replayed.stdout
    named = beggar("archive", "export", child["id"], "--text", "--name", "my long one", "--archive", archive).stdout
    assert "# my long one\n" in named and f"# job: {child['job']}\n" in named


@pytest.mark.slow
def names_of(games):
    return {loops.of_deal(game.deal).hex for game in games}


def test_the_shipped_finds_are_named_and_known_and_verify_takes_several_files():
    files = sorted((ROOT / "results").glob("*.json"))
    shipped = {str(game.deal): game for game in finds.shipped()}
    games = {path: load(str(path)) for path in files}      # a file may hold several (verify's list form)
    for path in files:
        for game in games[path]:
            assert not game.name.startswith("archive game") and game.name.startswith(path.stem + ": ")
            assert shipped[str(game.deal)].name == game.name and game.provenance["file"] == f"results/{path.name}"
    assert len(shipped) == sum(map(len, games.values()))
    loop_52 = load(str(ROOT / "results" / "loop-52-balanced.json"))[0].deal
    known = finds.known_loops("standard")
    assert known[loops.of_deal(loop_52).hex] == f"shipped with beggar: {shipped[str(loop_52)].name}"
    assert known[loops.of_deal(Deal.parse(CASELLA)).hex] == "published: Casella 2024"
    # The hunt's loops are known too, and the deals of 3 and 4 players shipped
    # beside them fall into them: Casella's, loop-52-balanced's and theirs.
    hunt = games[ROOT / "results" / "loops-52-hunt.json"]
    names = {f"shipped with beggar: {game.name}" for game in hunt}
    assert {known[loops.of_deal(game.deal).hex] for game in hunt} == names
    # The aimed hunt's near-balanced loops are known, its two balanced ones
    # among them (named by their first balanced deal shipped).
    near = {loops.of_deal(game.deal).hex for game in games[ROOT / "results" / "loops-52-near-balanced.json"]}
    assert all(known[loop].startswith("shipped with beggar: loop") for loop in near)
    balanced = {loops.of_deal(game.deal).hex for game in games[ROOT / "results" / "loop-52-balanced-hunt.json"]}
    assert len(balanced) == 2 and balanced <= near
    # And the atlas's examples and the loops of the deals into new families (some of them loops known before).
    later = {loops.of_deal(game.deal).hex for name in ("atlas-standard", "families-standard-3-4")
             for game in games[ROOT / "results" / f"{name}.json"]}
    first = {loops.of_deal(Deal.parse(CASELLA)).hex, loops.of_deal(loop_52).hex}
    assert len(known_loops("standard")) == len({*first, *names_of(hunt), *near, *later})
    result = beggar("verify", *files)
    total = sum(map(len, games.values()))
    assert result.returncode == 0 and result.stdout.splitlines()[-1] == f"{total} deals, 2 engines: all OK"
    assert [line.split()[0].rstrip(":") for line in result.stdout.splitlines()[1:-1]] == \
        [f"{p}" for p in files for _ in games[p]]


@pytest.mark.parametrize("name, hands", [("loop-3-players-standard", [18, 17, 17]),
                                         ("loop-4-players-standard-hunt", [13, 13, 13, 13])])
def test_the_hunt_s_balanced_deals_of_3_and_4_players_never_end_on_both_engines(name, hands):
    """The first balanced deals of the 52-card deck at a table of three that
    never end (and four-player ones into the same loops): some of each file,
    as saved, on both engines."""
    saved = load(str(ROOT / "results" / f"{name}.json"))
    for game in saved[:3] + saved[-3:]:
        assert [len(hand) for hand in game.deal.hands] == hands
        outcome = agree("play", game.deal, Rules())
        assert outcome.status == "loop" and not mismatches(game.expected, outcome), game.name


def test_a_damaged_installed_finds_file_is_named_as_the_installation_s(tmp_path):
    """It was 'finds.json: line 567 ...', exit 2, as if the user's file were wrong."""
    import beggar
    installed = Path(beggar.__file__).parent
    package = tmp_path / "beggar"
    # The installed package, its files linked, its finds.json damaged (a card no deck has).
    for path in installed.rglob("*"):
        if path.is_file() and "__pycache__" not in path.parts:
            (package / path.relative_to(installed)).parent.mkdir(parents=True, exist_ok=True)
            (package / path.relative_to(installed)).symlink_to(path)
    finds_file = package / "data" / "finds.json"
    lines = finds_file.read_text().splitlines()
    lines[566] = lines[566].replace('"deal": "', '"deal": "Z', 1)
    finds_file.unlink()
    finds_file.write_text("\n".join(lines) + "\n")
    job = tmp_path / "perturb.toml"
    job.write_text('driver = "perturb"\n')      # it starts from the known loops, the shipped finds' among them
    result = subprocess.run([sys.executable, "-m", "beggar", "search", str(job), "--archive", str(tmp_path / "a.sqlite")],
                            capture_output=True, text=True, cwd=tmp_path, timeout=120,
                            env={**os.environ, "PYTHONPATH": str(tmp_path)})
    fault(result, f"beggar search: {finds_file}: game 566: field 'deal'", "unknown card 'Z'",
          "a file of beggar's installation, damaged or missing (reinstall beggar)")
    assert not (tmp_path / "a.sqlite").exists()       # refused before it was stored: no archive


def test_the_readme_casella_example_replays_as_shown():
    result = beggar("replay", ROOT / "casella.txt")
    assert result.returncode == 0 and result.stdout.startswith(f"deal     {CASELLA}\nstatus   loop")
    readme = (ROOT / "README.md").read_text()
    assert (ROOT / "casella.txt").read_text() in readme


def test_a_job_writes_its_saved_games_out_of_gits_sight_and_knows_the_known_loops(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = os.path.join("results", "archive.sqlite")
    os.mkdir("results")
    deal = Deal.parse("K-KK----K-A-----JAA--Q--J-/---Q---Q-J-----J------AQ--")
    long = replace(play(deal), cards=9000)           # as if it beat the record
    casella = Deal.parse(CASELLA)
    with Archive(path) as archive:
        with archive.transaction():
            record_id, _ = archive.add_game(deal, Rules(), long, long, "j", "sample", 7, 3)
            loop_id, _ = archive.add_game(casella, Rules(), play(casella), play(casella), "j", "basin", 7, 4,
                                          loop=loops.of_deal(casella).key)
        line = announcement(archive, "j", record_id, deal, long, "sample")
        assert announcement(archive, "j", loop_id, casella, play(casella), "basin") is None   # published
    # In the job's own folder of the archive's folder of finds.
    [saved] = [os.path.join("results", "archive-finds", "j", name) for name in os.listdir("results/archive-finds/j")
               if name.startswith("record-9000-")]
    assert f"(saved to {saved})" in line and "NEW RECORD" in line
    assert Path("results/archive-finds/.gitignore").read_text().splitlines()[-1] == "*"
    entry = json.loads(Path(saved).read_text())
    assert entry["provenance"]["job"] == "j" and entry["provenance"]["seed"] == 7 and entry["provenance"]["chunk"] == 3
    assert sorted(os.listdir("results/archive-finds")) == [".gitignore", "j"]
    assert os.listdir("results/archive-finds/j") == [os.path.basename(saved)]


def _record(path):
    """An archive at `path` holding one game as if it beat the record: (game id, deal, outcome)."""
    deal = Deal.parse("K-KK----K-A-----JAA--Q--J-/---Q---Q-J-----J------AQ--")
    long = replace(play(deal), cards=9000)
    with Archive(path) as archive:
        with archive.transaction():
            game_id, _ = archive.add_game(deal, Rules(), long, long, "j", "sample", 7, 3)
    return game_id, deal, long


def test_a_file_where_the_finds_folder_goes_is_said_once_not_as_names_taken(tmp_path):
    """Each announcement said "10 names for it there are taken"."""
    path = tmp_path / "archive.sqlite"
    game_id, deal, long = _record(path)
    (tmp_path / "archive-finds").write_text("a file")
    with Archive(path) as archive:
        line = announcement(archive, "j", game_id, deal, long, "sample")
    assert f"kept in the archive as game {game_id}; cannot write in {tmp_path / 'archive-finds'}" in line, line
    assert "names for it there are taken" not in line
    assert (tmp_path / "archive-finds").read_text() == "a file"


def test_a_gitignore_left_empty_by_a_full_disk_is_written_again(tmp_path):
    """A full disk left the finds folder's .gitignore empty, and it was never
    written again: the folder's saved games were in git's sight for good."""
    path = tmp_path / "archive.sqlite"
    game_id, deal, long = _record(path)
    (tmp_path / "archive-finds").mkdir()
    (tmp_path / "archive-finds" / ".gitignore").write_text("")
    with Archive(path) as archive:
        line = announcement(archive, "j", game_id, deal, long, "sample")
    assert "saved to" in line, line
    assert (tmp_path / "archive-finds" / ".gitignore").read_text() == finds.IGNORE
    assert sorted(p.name for p in (tmp_path / "archive-finds").iterdir() if p.name != "j") \
        == [".gitignore"]     # no part file left behind


# Names that would forge a deal in the text form if written as they are: a
# line break of each kind (the text form is read by str.splitlines), the
# comment mark, the hands' separator, and a name longer than any line.
FORGING_NAMES = ["x\nJ", "x\r\nQ--\nK", "x\rA", "x\u2028J", "x\u2029J", "x\x85J", "x\x0bJ\x0cK", "x\x1cJ",
                 "# J/K", "J/K", "---KQ/-A", "x\t\x1b[2Jy", "é\u200b" + "K" * 100_000]


@pytest.mark.parametrize("names", [
    FORGING_NAMES[:1],          # the issue's: a text export of 'x\nJ' replayed a 3-player deal
    pytest.param(FORGING_NAMES, marks=pytest.mark.slow)])
def test_every_export_replays_as_the_game_exported_whatever_its_name(tmp_path, names):
    archive = tmp_path / "a.sqlite"
    deal = Deal.shuffled(2, 9, 4)
    with Archive(str(archive)) as opened, opened.transaction():
        outcome = play(deal)
        opened.add_game(deal, Rules(), outcome, outcome)
    for number, name in enumerate(names):
        for form in ([], ["--text"]):
            saved = tmp_path / f"{number}{''.join(form)}.txt"
            result = beggar("archive", "export", 1, saved, f"--name={name}", *form, "--archive", archive)
            assert result.returncode == 0, result.stderr
            game, = load(str(saved))
            assert game.deal == deal, (name, saved.read_text()[:300])
            if form:        # the name is one comment line, what would break it escaped
                assert saved.read_text().splitlines()[1] == "# " + one_line(name)
            else:
                assert game.name == name
            replayed = beggar("replay", saved)
            assert replayed.returncode == 0 and f"deal     {deal}\n" in replayed.stdout, (name, replayed)
            assert f"\ncards    {outcome.cards}\n" in replayed.stdout, (name, replayed)
    assert one_line("x\nJ\r\x00\u2028é") == "x\\nJ\\r\\x00\\u2028é"


def test_a_saved_games_name_never_leaves_its_line_even_with_a_nul():
    # NUL cannot pass on a command line: the writer itself, for every form.
    deal = Deal.shuffled(3, 1, 2)
    for name in FORGING_NAMES + ["x\x00J", "\x00", "x\ud800J"]:
        game = SavedGame(deal, name=name, provenance={"job": name, "note": {"why": name}})
        for text in (to_text(game, play(deal)), to_json(game, play(deal))):
            read, = parse(text, "f")
            assert read.deal == deal, (name, text[:300])
        assert parse(to_json(game), "f")[0].name == name
        assert len(to_text(game).splitlines()) == 2 + 2 + deal.players      # header, name, job, note, hands


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


def test_a_run_tells_its_first_new_loops_with_their_table_and_counts_the_rest_saved_in_the_job_s_folder(tmp_path):
    """A 5-minute hunt printed 88 NEW LOOP lines, its summary repeated them,
    and a deal of 13/13/13/13 was "a balanced deal" at no table said."""
    from test_report import hunted
    path = tmp_path / "a.sqlite"
    job = hunted(path)
    with Archive(path) as archive:
        games = [game for game in archive.games(job=job) if game["players"] == 4]
        news = [(game["id"], Deal.parse(game["deal"]), play(Deal.parse(game["deal"])), game["driver"])
                for game in games]
        summary, heard = Summary(job, "running", 1), []
        tell(archive, job, news, summary, heard.append)
    assert len(games) > TOLD + 1
    folder = tmp_path / "a-finds" / job
    told = [line for line in heard if "NEW LOOP" in line]
    assert len(told) == TOLD and summary.announced == told and summary.untold == len(games) - TOLD
    for line, (_, deal, outcome, _) in zip(told, news):
        assert line.startswith(f"*** NEW LOOP: a balanced deal of 4 players (5/5/4/4) that never ends (entry "
                               f"{outcome.loop_entry[0]} tricks, period {outcome.loop_period[0]} tricks / "
                               f"{outcome.loop_period[1]} cards): {deal} (saved to {folder}{os.sep}loop-"), line
    assert heard[TOLD:] == [f"*** more new loops: each saved to {folder} and counted in the summary, no longer told "
                            "one by one ***"]
    # Every one is saved, in the job's own folder.
    saved = {name.name for name in folder.glob("loop-*.json")}
    assert {f"loop-{outcome.cards}-{hashlib.sha256(str(deal).encode()).hexdigest()[:10]}.json"
            for _, deal, outcome, _ in news} <= saved
    assert summary_lines(summary, path) == [f"NEW      {line}" for line in told] + [
        f"NEW      ... and {len(games) - TOLD} more new loops, each saved to {folder}"]


def test_every_shipped_deal_plays_as_saved_by_a_player_written_apart_from_the_engines():
    """Every find shipped with beggar, replayed by tests/apart.py, which
    shares nothing with the engines that found and checked it."""
    from apart import play as play_apart
    for game in finds.shipped():
        want = game.expected
        entry, period = want.get("loop_entry"), want.get("loop_period")     # (tricks, cards) of a loop
        assert play_apart([list(hand) for hand in game.deal.hands]) == (
            want["status"], want["cards"], want["tricks"], entry, period), game.name
