"""The `beggar` command, run as a real subprocess: play, replay, verify and
saved games, bad input in one line; what a user reads (help texts, one form
of a count and a time in every text view, verify's table); the files the
command writes (a full disk is a fault, an empty --plot name is refused);
and junk arguments: every command, given random junk arguments and files,
ends with one of its exit statuses (0, 1, 2 or 3) and never prints a
traceback (a property test with plain `random` and a fixed seed: the same
cases every run)."""

import itertools
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from beggar import Deal, Rules, play
from beggar.engine import tricks
from beggar.savefile import SavedGame, load, to_json, to_text
from helpers import CASELLA, MANN_WU, SCRIPT, _command, bad_input, beggar, fault, in_process, long_deal

ROOT = Path(__file__).resolve().parent.parent


def test_verify_published_deals_on_both_engines():
    result = beggar("verify")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["deal", "year", "status", "expected", "compiled", "reference"]
    assert "Nessler 2022      2022  finished  8344/1164  8344/1164 OK  8344/1164 OK" in lines
    assert sum(line.count(" OK") == 2 for line in lines[1:-1]) == 10
    assert lines[-1] == "10 deals, 2 engines: all OK"


def test_verify_own_file_reports_a_mismatch(tmp_path):
    games = [{"name": "right", "deal": CASELLA,
              "expected": {"status": "loop", "cards": 474, "tricks": 66,
                           "loop_entry": {"tricks": 4, "cards": 34},
                           "loop_period": {"tricks": 62, "cards": 440}}},
             {"name": "wrong", "deal": MANN_WU,
              "expected": {"status": "finished", "cards": 7158, "tricks": 1007}}]
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(games))
    result = beggar("verify", path, "--engine", "reference")
    assert result.returncode == 1
    rows = {line.split()[0]: line for line in result.stdout.splitlines()}
    assert rows["right"].endswith("474/66 OK")
    assert rows["wrong"].endswith("7157/1007 MISMATCH")


def test_replay_of_the_published_loop(tmp_path):
    path = tmp_path / "loop.txt"
    path.write_text("# Casella 2024\n" + CASELLA.replace("/", "\n") + "\n")
    result = beggar("replay", path)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "entry    after 4 tricks / 34 cards" in out
    assert "period   62 tricks / 440 cards" in out
    assert "the state entering the loop, after trick 4 (hand 2 leads):" in out
    assert "  hand 2  -----KA-J-  (10 cards)" in out
    period = out.split("one period, tricks 5 to 66:\n")[1].splitlines()
    assert len(period) == 1 + 62 and period[-1].split()[:5] == ["66", "2", "2", "42", "10"]


@pytest.mark.slow
def test_replay_trace_and_plot(tmp_path):
    pytest.importorskip("matplotlib", reason="the plot extra: pip install '.[plot]'")
    png = tmp_path / "sizes.png"
    result = beggar("replay", "-", "--trace", "--plot", png, stdin=MANN_WU + "\n")
    assert result.returncode == 0, result.stderr
    rows = [line for line in result.stdout.splitlines() if line[:6].strip().isdigit()]
    assert len(rows) == 1007
    last = list(itertools.islice(tricks(Deal.parse(MANN_WU)), 1007))[-1]
    assert rows[-1].split()[:5] == ["1007", str(last.leader + 1), "2", "0", "52"]
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    fault(beggar("replay", CASELLA, "--plot", "/dev/full"), "--plot /dev/full: cannot write (No space left")
    bad_input(beggar("replay", CASELLA, "--plot", tmp_path / "sizes.xyz"), "sizes.xyz: Format 'xyz' is not supported")


def test_replay_takes_one_game_of_a_file_of_many():
    """A shipped find is one game of a file of many (results/*.json): --game N
    or --game NAME replays it alone, --trace too."""
    path = ROOT / "results" / "loop-3-players-standard.json"
    games = load(path)
    third = games[2]
    result = in_process("replay", path, "--game", 3, "--trace")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[:2] == [f"game     {third.name}", f"deal     {third.deal}"]
    assert "expected OK, as saved" in lines
    rows = [line.split() for line in lines if line[:6].strip().isdigit()]
    assert len(rows) == third.expected["tricks"]
    last = list(itertools.islice(tricks(third.deal), len(rows)))[-1]
    assert rows[-1][:3] == [str(len(rows)), str(last.leader + 1), str(last.taker + 1)]
    # By name: the whole name, or a part of it that one name alone holds, in any case.
    named = in_process("replay", path, "--game", "DEAL 17 OF 162")
    assert named.returncode == 0 and named.stdout.splitlines()[1] == f"deal     {games[16].deal}", named
    published = ROOT / "src" / "beggar" / "data" / "published-deals.json"
    assert f"deal     {MANN_WU}" in in_process("play", published, "--game", "Mann and Wu 2007").stdout


@pytest.mark.slow
def test_replay_plots_one_game_of_a_file_of_many(tmp_path):
    pytest.importorskip("matplotlib", reason="the plot extra: pip install '.[plot]'")
    png = tmp_path / "third.png"
    result = beggar("replay", ROOT / "results" / "loop-3-players-standard.json", "--game", 3, "--plot", png)
    assert result.returncode == 0 and result.stdout.splitlines()[-1] == f"plot written to {png}", result
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("args, told", [
    ((), "loop-3-players-standard.json: holds 162 games; this takes one: --game N (1 to 162) or --game NAME"),
    (("--game", "163"), "loop-3-players-standard.json: --game 163: no such game; it holds 162 games (1 to 162)"),
    (("--game", "0"), "--game 0: no such game"),
    (("--game", "nothing like it"), "--game 'nothing like it': no game of its 162 games has that name"),
    (("--game", "deal 1"), "--game 'deal 1': the names of 74 of its games hold it (give more of the name"),
    (("--index", "3"), "--index numbers the deals of a --seed; a game of a FILE is picked by --game N"),
    (("--seed", "3"), "give a FILE or --players/--seed, not both"),
])
def test_a_game_of_a_file_not_found_is_one_line(args, told):
    bad_input(in_process("replay", ROOT / "results" / "loop-3-players-standard.json", *args), told)


def test_game_is_for_files_not_seeds():
    bad_input(in_process("play", "--seed", 3, "--game", 2),
              "beggar play: --game picks a game of a DEAL; a deal of a --seed is picked by --index")


def test_play_json_matches_the_api():
    result = beggar("play", MANN_WU, "--json", "--engine", "reference")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    outcome = play(MANN_WU)
    assert data["deal"] == MANN_WU and data["engine"] == "reference"
    assert (data["status"], data["winner"], data["cards"], data["tricks"], data["counts"]) == \
        (outcome.status, outcome.winner, outcome.cards, outcome.tricks, list(outcome.counts))


def test_play_shuffled_and_limits():
    result = beggar("play", "--players", 3, "--seed", 7, "--max-tricks", 5, "--json")
    data = json.loads(result.stdout)
    outcome = play(Deal.shuffled(3, 7), max_tricks=5)
    assert (data["status"], data["tricks"], data["counts"]) == ("stopped", 5, list(outcome.counts))
    text = beggar("play", CASELLA, "--max-cards", 100).stdout
    assert "status   stopped at the limit: hand 1 holds the most cards" in text


@pytest.mark.slow
def test_saved_game_round_trip(tmp_path):
    deal = Deal.shuffled(2, 3, 11)
    for rules in (Rules(), Rules(max_tricks=20)):
        outcome = play(deal, rules.max_cards, rules.max_tricks)
        game = SavedGame(deal, rules, name="round trip")
        saved = tmp_path / "game.json"
        saved.write_text(to_json(game, outcome))
        result = beggar("replay", saved)
        assert result.returncode == 0 and "expected OK, as saved" in result.stdout, result
        data = json.loads(beggar("play", saved, "--json").stdout)
        assert (data["status"], data["cards"], data["tricks"]) == \
            (outcome.status, outcome.cards, outcome.tricks)
    text = tmp_path / "game.txt"
    text.write_text(to_text(SavedGame(deal), play(deal)))
    assert json.loads(beggar("play", text, "--json").stdout)["cards"] == play(deal).cards


@pytest.mark.slow
def test_help_of_every_command():
    for command in ("play", "verify", "replay"):
        result = beggar(command, "--help")
        assert result.returncode == 0 and f"usage: beggar {command}" in result.stdout
    assert "--max-cards" in beggar("play", "--help").stdout
    assert "--trace" in beggar("replay", "--help").stdout


def test_bad_input_missing_file(tmp_path):
    bad_input(beggar("replay", tmp_path / "nothing.txt"), "nothing.txt: no such file")


def test_bad_input_malformed_line(tmp_path):
    path = tmp_path / "deal.txt"
    path.write_text("# a comment\n---K---Q-KQAJ-----AAJ--J--\n\n----------Q----KQ-JZ----KA\n")
    bad_input(beggar("play", path), "deal.txt: line 4, column 20: unknown card 'Z'")
    path.write_text("---K---Q/-KQAJ\n----\n")
    bad_input(beggar("play", path), "line 1, column 9: '/' separates hands only")


@pytest.mark.slow
def test_bad_input_on_the_command_line():
    bad_input(beggar("play", "K-KZ/--"), "beggar play: position 4: unknown card 'Z'")
    five_aces = "A" + MANN_WU[1:]
    bad_input(beggar("play", five_aces, "--deck", "standard"), "position 50: ace number 5")
    bad_input(beggar("play", "J/Q/K/A/-"), "5 players")
    bad_input(beggar("play"), "give a DEAL")
    bad_input(beggar("play", CASELLA, "--seed", 3), "not both")
    bad_input(beggar("play", "--index", 3), "--players and --index need --seed")


@pytest.mark.slow
def test_bad_input_in_json(tmp_path):
    path = tmp_path / "game.json"
    cases = [
        ('{"deal": "J-/-J", "expectd": {}}', "game.json: unknown field 'expectd'"),
        ('{"rules": {}}', "game.json: missing field 'deal'"),
        ('{"deal": "J-/-J",\n "rules": {"max_cards": 0}}', "field 'rules': max_cards must be"),
        ('{"deal": "J-/-J",\n "rules": [1, }', "game.json: line 2, column 15: not valid JSON"),
        ('[{"deal": "J-/-J"}, {"deal": ["J-", "-Z"]}]', "game 2: field 'deal': position 5: unknown card 'Z'"),
        ('{"deal": "J-/-J", "expected": {"status": "won", "cards": 1, "tricks": 1}}',
         "field 'expected.status' is 'won'"),
        ('{"deal": 7}', "field 'deal' must be"),
    ]
    for text, message in cases:
        path.write_text(text)
        bad_input(beggar("replay", path), message)


def test_bad_option_values():
    bad_input(beggar("play", CASELLA, "--max-cards", "0"), "must be a whole number from 1 to 10**18")


@pytest.mark.parametrize("args, message", [
    (("play", CASELLA, "--max-cards", 2 ** 62), "--max-cards: must be a whole number from 1 to 10**18"),
    (("play", CASELLA, "--max-tricks", 10 ** 19), "--max-tricks: must be a whole number from 1 to 10**18"),
    (("play", "--seed", 2 ** 64), "--seed: must be a whole number from 0 to 2**64-1"),
    (("replay", "--seed", 1, "--index", 2 ** 64), "--index: must be a whole number from 0 to 2**64-1"),
    (("family", MANN_WU, "--max-seconds", "inf"), "--max-seconds: must be a number of seconds above 0"),
    (("family", MANN_WU, "--max-seconds", "1e300"), "at most 1,000,000,000"),
    (("basin", CASELLA, "--max-states", 10 ** 23 - 1), "--max-states: must be a whole number from 1 to 10**18"),
    (("archive", "show", 2 ** 63), "ID: must be a whole number from 0 to 2**63-1"),
    (("archive", "export", 2 ** 63), "ID: must be a whole number from 0 to 2**63-1"),
    (("archive", "list", "--min-cards", 10 ** 23 - 1), "--min-cards: must be a whole number from 0 to 10**18"),
    (("archive", "list", "--limit", 2 ** 63), "--limit: must be a whole number from 1 to 10**18"),
    (("search", "--workers", 10 ** 20 - 1), "--workers: must be a whole number from 1 to"),
    (("search", "--deals", 10 ** 26), "--deals: must be a whole number from 0 to 10**18"),
    (("search", "--seed", 2 ** 64), "--seed: must be a whole number from 0 to 2**64-1"),
    (("search", "--min-cards", 10 ** 30), "--min-cards: must be a whole number from 0 to 10**18"),
    (("search", "--time", "nan"), "--time: must be a number of seconds above 0"),
])
def test_numbers_out_of_range_are_one_line(tmp_path, args, message):
    # Each is refused before any file is opened: the archive is never created.
    archive = tmp_path / "a.sqlite"
    extra = ("--archive", archive) if args[0] in ("search", "archive") else ()
    bad_input(beggar(*args, *extra), message)
    assert not archive.exists()


@pytest.mark.slow
def test_messages_say_what_was_meant():
    bad_input(beggar("play", "KKKK"), "beggar play: 1 player: a deal has 2 to 4 hands")
    bad_input(beggar("play", "J-/-J/--/-/-"), "5 players: a deal has 2 to 4 hands")
    # '///' names the root directory too: it is read as the deal it looks like.
    bad_input(beggar("play", "///"), "beggar play: hand 1 is empty")


@pytest.mark.skipif(not SCRIPT.exists(), reason="the beggar script is installed by pip install")
def test_the_installed_script_is_the_command():
    assert os.access(SCRIPT, os.X_OK)


@pytest.mark.slow
def test_saved_games_hostile_or_odd(tmp_path):
    path = tmp_path / "game.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    bad_input(beggar("play", path), "game.json: JSON nested too deeply")
    path.write_text('{"deal": "J-/-J", "expected": {"status": "finished", "cards": ' + "9" * 5001
                    + ', "tricks": 1}}')
    bad_input(beggar("replay", path), "game.json: not a saved game (Exceeds the limit")
    # A byte order mark, as some editors write: the file is read as the text it is.
    bom = tmp_path / "bom.txt"
    bom.write_bytes(b"\xef\xbb\xbf" + MANN_WU.encode() + b"\n")
    assert json.loads(beggar("play", bom, "--json").stdout)["cards"] == 7157
    assert json.loads(beggar("play", "-", "--json", stdin="\ufeff" + MANN_WU).stdout)["cards"] == 7157
    bom.write_bytes(b"\xef\xbb\xbf" + to_json(SavedGame(Deal.parse(MANN_WU))).encode())
    assert json.loads(beggar("play", bom, "--json").stdout)["cards"] == 7157


@pytest.mark.slow
def test_huge_saved_games_are_refused_without_reading_them_whole(tmp_path):
    big = tmp_path / "big.txt"
    big.write_bytes(b"-" * 30_000_000)
    started = time.monotonic()
    bad_input(beggar("play", big), "big.txt: larger than 4 MiB")
    bad_input(beggar("play", "/dev/zero"), "/dev/zero: larger than 4 MiB")
    assert time.monotonic() - started < 10
    # Under the size bound, the cards are counted as they are read.
    many = tmp_path / "many.txt"
    many.write_text("J" + "-" * 3_000_000 + "/J\n")
    bad_input(beggar("play", many), "many.txt: line 1, column 65536: more than 65535 cards")


def test_output_and_input_that_cannot_be_used():
    with open("/dev/full", "w") as full:
        result = subprocess.run(_command(["play", MANN_WU]), stdout=full, stderr=subprocess.PIPE, text=True)
    assert result.returncode == 3 and result.stderr == \
        "beggar play: cannot write the output (No space left on device)\n"
    closed = subprocess.run(_command(["play", "-"]), stdin=subprocess.DEVNULL, capture_output=True,
                            text=True, preexec_fn=lambda: os.close(0))
    bad_input(closed, "beggar play: standard input: closed")
    result = subprocess.run(_command(["play", MANN_WU]), stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: os.close(1))
    assert result.returncode == 3 and result.stderr == "beggar: standard output is closed: nothing could be shown\n"


@pytest.mark.parametrize("module", ["argparse", "sqlite3", "json"])
def test_ctrl_c_while_the_command_imports_exits_quietly(tmp_path, module):
    # A module the command imports as it starts, which presses Ctrl-C itself.
    (tmp_path / f"{module}.py").write_text("import os, signal, time\nos.kill(os.getpid(), signal.SIGINT)\n"
                                           "time.sleep(10)\n")
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    # As from a terminal: Ctrl-C is not ignored (a background job of a shell
    # script, as CI may be, inherits SIGINT ignored).
    result = subprocess.run(_command(["play", MANN_WU]), capture_output=True, text=True, env=env, timeout=60,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert (result.returncode, result.stdout, result.stderr) == (130, "", "")


MAX_RSS = """
import resource, subprocess, sys
done = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
lines = done.stdout.count("\\n")
print(done.returncode, lines, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""


@pytest.mark.slow
def test_replay_trace_streams_a_long_game(tmp_path):
    """The trace of a game of 40,000 tricks takes no more memory than that of
    one of 1,000: each trick is printed as it is played, none is kept."""
    long = tmp_path / "long.txt"
    long.write_text(str(long_deal()) + "\n")

    def traced(source):
        """(exit status, lines printed, largest memory in KiB) of replay --trace."""
        done = subprocess.run([sys.executable, "-c", MAX_RSS, *_command(["replay", source, "--trace"])],
                              capture_output=True, text=True, timeout=300)
        return tuple(int(word) for word in done.stdout.split())

    status, short_lines, short_kib = traced(MANN_WU)
    assert status == 0 and short_lines > 1007
    status, long_lines, long_kib = traced(long)
    assert status == 0 and long_lines > 30_000
    assert long_kib - short_kib < 10_000, (short_kib, long_kib)


# ---------------------------------------------------------------- what a user reads

def test_a_count_has_one_form_in_every_text_view():
    from beggar.cli import format as text
    assert [text.number(n) for n in (13622, 9_999_999, 3.37e10, 2.6e17)] == ["13,622", "9,999,999", "3.4e10",
                                                                             "2.6e17"]
    assert text.when("2026-12-01T20:12:33+00:00") == "2026-12-01 20:12"
    page = (ROOT / "src" / "beggar" / "cli" / "page.py").read_text()
    assert ".3g}\", f\"{r['deals_low']" not in page and "[:16]" not in page


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


def test_words_left_over_are_refused_by_the_command_they_follow():
    result = beggar("stats", "some-job", "another")
    assert result.returncode == 2
    assert result.stderr.startswith("beggar stats: unrecognized arguments: another"), result.stderr


@pytest.mark.slow
def test_help_texts_say_what_they_mean():
    assert "%%" not in beggar("stats", "--help").stdout
    assert "95 % Wilson" in " ".join(beggar("stats", "--help").stdout.split())
    for command in ("replay", "stats"):
        text = " ".join(beggar(command, "--help").stdout.split())
        assert "pip install '.[plot]' in beggar's source folder (a clone, or its unpacked release)" in text
    text = " ".join(beggar("family", "--help").stdout.split())
    assert "--players N players: 2 (a family is found by two-player backward play)" in text and "2 to 4" not in text
    assert "2 to 4" in beggar("play", "--help").stdout


def test_play_json_names_the_winning_hand_as_the_text_does():
    out = json.loads(beggar("play", MANN_WU, "--json").stdout)
    text = beggar("play", MANN_WU).stdout
    assert "hand 2 wins" in text and out["winner"] == 1 and out["winner_hand"] == 2


def test_one_deal_is_one_deal(tmp_path):
    game = tmp_path / "one.json"
    game.write_text(json.dumps({"deal": MANN_WU, "expected": {"status": "finished", "cards": 7157, "tricks": 1007}}))
    assert beggar("verify", game).stdout.splitlines()[-1] == "1 deal, 2 engines: all OK"


def test_an_unknown_engine_from_the_environment_names_the_variable(tmp_path):
    line = bad_input(beggar("play", CASELLA, env={"BEGGAR_ENGINE": "nonsense"}),
                     "unknown engine 'nonsense' (from the environment variable BEGGAR_ENGINE)")
    assert "compiled, reference" in line
    bad_input(beggar("search", "--deals", 1000, "--archive", tmp_path / "a.sqlite", env={"BEGGAR_ENGINE": "nonsense"}),
              "the environment variable BEGGAR_ENGINE must be one of compiled, reference")
    assert not (tmp_path / "a.sqlite").exists()


# ---------------------------------------------------------------- files the command writes

FULL = Path("/dev/full")


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


# ---------------------------------------------------------------- junk arguments: one of the exit statuses, never a traceback

COMMANDS = (("play",), ("verify",), ("replay",), ("family",), ("basin",), ("search",), ("census",),
            ("archive", "list"), ("archive", "show"), ("archive", "export"), ("archive", "census"), ("stats",))


OPTIONS = ("--max-cards", "--max-tricks", "--seed", "--index", "--players", "--split", "--deck", "--engine",
           "--json", "--trace", "--time", "--workers", "--deals", "--min-cards", "--resume", "--limit",
           "--max-states", "--max-seconds", "--loops", "--records", "--disputed", "--job", "--text", "--quiet",
           "--archive", "--export", "--first", "--count", "--top", "--chunk", "--plot", "--tail-from", "--extend-cards", "--bogus", "-x",
           "--")


NUMBERS = ("0", "1", "2", "3", "5", "-1", "-0", "007", "2.5", "1e300", "inf", "-inf", "nan", "0x10", "1_000",
           str(2 ** 62), str(2 ** 63), str(2 ** 64), str(10 ** 30), "9" * 5000, "", " ", "١٢")


WORDS = ("standard", "camicia", "half", "18 2J 2Q 2K 2A", "999J", "even", "random", "compiled", "reference",
         "K-/-K", "///", "-", "J-/-J/--/-/-", CASELLA, MANN_WU, "A" * 300, "é\u202e", "--", "a b", "%s%n",
         "../" * 20)


def junk_files(folder):
    """Files of every odd kind, by name."""
    rng = random.Random(7)
    files = {
        "bytes.bin": bytes(rng.randrange(256) for _ in range(4000)),
        "bom.txt": b"\xef\xbb\xbf" + MANN_WU.encode(),
        "empty.txt": b"",
        "deep.json": b"[" * 50_000 + b"]" * 50_000,
        "bigint.json": b'{"deal": "J-/-J", "expected": {"status": "loop", "cards": ' + b"7" * 5001 + b', "tricks": 1}}',
        "list.json": json.dumps([{"deal": CASELLA}, {"deal": 3}, None]).encode(),
        "game.json": json.dumps({"deal": MANN_WU, "rules": {"max_cards": 10 ** 19}}).encode(),
        "hands.txt": (CASELLA.replace("/", "\n") + "\n").encode(),
        "job.toml": b"deals = 20000\nchunk = 1000000000\nworkers = 1000\nmin_cards = 1\n",
        "bad.toml": b"\xff\xfe[climb\n",
        "corrupt.sqlite": b"SQLite format 3\x00" + bytes(rng.randrange(256) for _ in range(8000)),
    }
    for name, data in files.items():
        (folder / name).write_bytes(data)
    foreign = folder / "foreign.sqlite"
    with sqlite3.connect(foreign) as db:
        db.execute("PRAGMA application_id = 1111971666")
        db.execute("CREATE TABLE games (x)")
    (folder / "dir").mkdir()
    return [str(folder / name) for name in [*files, "foreign.sqlite", "dir", "missing.txt"]]


def junk_arguments(rng, commands, files):
    command = list(rng.choice(commands))
    args = []
    for _ in range(rng.randrange(5)):
        kind = rng.random()
        if kind < 0.45:
            args.append(rng.choice(OPTIONS))
            args.append(rng.choice(NUMBERS + WORDS + tuple(files)))
        elif kind < 0.65:
            args.append(rng.choice(files))
        elif kind < 0.8:
            args.append(rng.choice(NUMBERS))
        else:
            args.append(rng.choice(WORDS))
    return command + args


def _junk_runs(tmp_path, monkeypatch, cases, commands):
    """`cases` seeded junk runs of `commands`: each ends with 0-3, never a traceback."""
    monkeypatch.chdir(tmp_path)         # a command that names no archive makes its default one here
    files = junk_files(tmp_path)
    archive = str(tmp_path / "archive.sqlite")
    rng = random.Random(2024)
    for _ in range(cases):
        args = junk_arguments(rng, commands, files)
        # Bounds last (argparse keeps the last of an option): every case ends soon.
        if args[0] in ("search", "census"):
            args += ["--time", "1", "--archive", archive]
        elif args[0] in ("archive", "stats"):
            args += ["--archive", rng.choice([archive, *files])]
        elif args[0] in ("family", "basin"):
            args += ["--max-seconds", "2", "--max-states", "200000"]
        stdin = rng.choice([None, "", MANN_WU, "\x00\x01\xff junk", "[" * 1000])
        result = beggar(*args, stdin=stdin, env={"BEGGAR_LOCK_SECONDS": "1"})
        assert result.returncode in (0, 1, 2, 3), (args, result)
        assert "Traceback" not in result.stderr, (args, result.stderr)


@pytest.mark.slow
def test_junk_never_makes_a_traceback_of_a_command_that_plays_no_job(tmp_path, monkeypatch):
    _junk_runs(tmp_path, monkeypatch, 10, [command for command in COMMANDS
                                           if command[0] not in ("search", "census", "family", "basin")])


@pytest.mark.slow
def test_junk_never_makes_a_traceback(tmp_path, monkeypatch):
    # A fixed number of cases, however fast the machine: a search case takes
    # 2 s or more (its --time 1, then its chunks cut off a second later).
    _junk_runs(tmp_path, monkeypatch, 50, COMMANDS)
