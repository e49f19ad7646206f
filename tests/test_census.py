"""Census: the order of arrangements, every engine on every deal of tiny decks
and on census blocks of every kind (tests/engines.py's harness), and census
jobs through the real command (chunks, resume, loop deals and loops as two
words everywhere, `beggar archive census`)."""

import itertools
import json
import re
import shlex
from collections import Counter
from pathlib import Path

import pytest

from beggar import Deal, census, engine, loops, reference
from beggar.census import count
from beggar.archive import Archive
from beggar.cycle import key_deal, key_hands
from beggar.decks import Deck, DeckError, deal_out, hand_sizes
from beggar.reports import tally
from engines import agree, fast
from helpers import CENSUS_DECK, bad_input, beggar, in_process, job_file, job_id, kept, start
from shapes import CENSUS_BLOCKS

TINY = ["2 1J 1Q", "3 1J 1Q 1K", "4 2J 1A", "5 1J 1Q 1K 1A", "3J 2Q"]


@pytest.mark.parametrize("deck", TINY)
def test_unrank_rank_and_next_agree_with_itertools(deck):
    deck = Deck.parse(deck)
    multiset = [code for code, n in enumerate(deck.counts) for _ in range(n)]
    every = sorted(set(itertools.permutations(multiset)))
    assert census.count(deck) == len(every)
    cards = census.unrank(0, deck)
    for number, arrangement in enumerate(every):
        assert tuple(cards) == arrangement
        assert census.unrank(number, deck) == list(arrangement)
        assert census.rank(list(arrangement)) == number
        assert census.next_arrangement(cards) == (number < len(every) - 1)
    assert census.count("half") == 3_936_933_000 and census.count("half-camicia") == 3_488_400
    assert census.unrank(census.count("standard") - 1, "standard") == [4] * 4 + [3] * 4 + [2] * 4 + [1] * 4 + [0] * 36


@pytest.mark.parametrize("deck, players, split", [("2 1J 1Q", 2, None), ("3 1J 1Q 1K", 2, None),
                                                  ("6 2J 2Q", 2, None), ("6 2J 2Q", 2, 3),
                                                  ("6 2J 1Q 1A", 3, None), ("5 1J 1Q 1K 1A", 4, None)])
def test_every_deal_of_a_tiny_deck_by_both_engines(deck, players, split):
    deck = Deck.parse(deck)
    sizes = hand_sizes(deck.total, players, split)
    multiset = [code for code, n in enumerate(deck.counts) for _ in range(n)]
    deals = [Deal.from_codes(deal_out(a, sizes)) for a in sorted(set(itertools.permutations(multiset)))]
    outcomes = [reference.play(deal) for deal in deals]
    result = agree("census", 0, len(deals), deck, players, split, 3)
    assert result.statuses == {"finished": sum(o.status == "finished" for o in outcomes),
                               "loop": sum(o.status == "loop" for o in outcomes), "stopped": 0}
    assert result.cards == Counter(o.cards for o in outcomes)
    assert result.tricks == Counter(o.tricks for o in outcomes)
    assert [(rank, deal, outcome) for rank, deal, outcome, _ in result.loops] == \
        [(i, deals[i], o) for i, o in enumerate(outcomes) if o.status == "loop"]
    finished = sorted((-o.cards, i) for i, o in enumerate(outcomes) if o.status == "finished")[:3]
    assert [(rank, deal) for rank, deal, _ in result.longest] == [(i, deals[i]) for _, i in finished]
    # Blocks in any place give the same as the whole.
    whole = engine.census(0, len(deals), deck, players, split)
    half = len(deals) // 2
    parts = [engine.census(0, half, deck, players, split), engine.census(half, len(deals) - half, deck, players, split)]
    assert sum((Counter(p.cards) for p in parts), Counter()) == whole.cards
    assert [loop for p in parts for loop in p.loops] == whole.loops


@pytest.mark.parametrize("deck, split, first, deals", CENSUS_BLOCKS)
def test_census_blocks_as_the_compiled_engine_counts_them(deck, split, first, deals):
    # On every engine but the reference, which would take minutes for blocks this large.
    deck = Deck.parse(deck)
    deals = deals or census.count(deck)
    block = agree("census", first, deals, deck, 2, split, 10, engines=fast())
    assert block.statuses["finished"] + block.statuses["loop"] == deals


def test_the_canonical_state_is_the_same_from_every_state_of_a_cycle():
    found = engine.census(0, census.count("6 2J 2Q"), "6 2J 2Q").loops
    assert found
    for rank, deal, outcome, key in found:
        entry, period = outcome.loop_entry[0], outcome.loop_period[0]
        cycle = list(itertools.islice(engine.tricks(deal), entry, entry + period))
        for trick in cycle:
            # The state as a deal of its own: the leader's hand first.
            players = len(trick.hands)
            start = Deal.from_codes([trick.hands[(trick.taker + i) % players] for i in range(players)])
            replay = reference.play(start)
            assert replay.status == "loop" and replay.loop_period == outcome.loop_period
            assert reference._loop_key(start, replay) == key
        assert key_deal(key) in [Deal.from_codes([t.hands[(t.taker + i) % 2] for i in range(2)])
                                        for t in cycle]


@pytest.mark.parametrize("deck, players", [("6 2J 1Q 1A", 3), ("6 2J 1Q 1A", 4), ("7 3J 1Q", 3), ("7 3J 1Q", 4)])
def test_a_loop_reached_at_a_table_of_3_or_4_is_named_by_its_players_on_both_engines(deck, players):
    """A player who is out is no part of a loop: its key holds the hands of
    those still in, the least over the cycle written that way, whatever seats
    the others left empty (cycle.state_key, _game.state_key)."""
    every = census.count(deck)
    compiled = engine.census(0, every, deck, players, engine="compiled").loops
    reference = engine.census(0, every, deck, players, engine="reference").loops
    assert compiled and [key for *_, key in compiled] == [key for *_, key in reference]
    seatings = {}
    for rank, deal, outcome, key in compiled:
        still_in = sum(1 for count in outcome.counts if count)
        loop = loops.of_deal(deal)
        assert key == loop.key and loop.players == still_in == len(key_hands(key)) and all(key_hands(key))
        assert loop.deal() == key_deal(key) and engine.play(key_deal(key)).loop_entry == (0, 0)
        seatings.setdefault(key, set()).add(tuple(bool(count) for count in outcome.counts))
    # One loop, whichever seats the players out left empty.
    assert any(len(seated) > 1 for seated in seatings.values())


def test_bad_blocks_are_refused():
    with pytest.raises(ValueError, match="first must be a whole number from 0 to 11"):
        engine.census(12, 1, "2 1J 1Q")
    with pytest.raises(ValueError, match="deals must be a whole number from 0 to 2"):
        engine.census(10, 3, "2 1J 1Q")
    with pytest.raises(DeckError, match="split is even or a number"):
        engine.census(0, 1, "2 1J 1Q", split="random")


@pytest.mark.slow
def test_a_census_job_adds_up_and_a_resumed_one_equals_it(tmp_path):
    deck = "8 2J 1Q 1K"         # 5,940 deals, a few of them loops
    archive = tmp_path / "census.sqlite"
    run = beggar("census", deck, "--chunk", "500", "--archive", archive, "--quiet")
    assert run.returncode == 0, run.stderr
    assert "deals    5,940" in run.stdout and "loop deals" in run.stdout
    whole_id = re.search(r"job      (\S+):", run.stdout).group(1)
    with Archive(archive) as opened:
        whole = tally.tally(opened, whole_id)
        chunks = opened.chunk_stats(whole_id)
    assert len(chunks) == 12 and whole.complete
    assert sum(sum(c["statuses"].values()) for c in chunks) == census.count(deck) == whole.deals
    assert sum(whole.cards.values()) == sum(whole.tricks.values()) == census.count(deck)
    direct = engine.census(0, census.count(deck), deck, top=10)
    assert dict(whole.cards) == direct.cards and whole.statuses["loop"] == len(direct.loops)
    assert sorted(whole.loops) == sorted({key.hex() for *_, key in direct.loops})
    assert whole.longest["cards"] == direct.longest[0][2].cards
    # The same census cut short and resumed ends the same.
    other = tmp_path / "resumed.sqlite"
    stopped = beggar("census", deck, "--chunk", "500", "--workers", "1", "--time", "0.01",
                     "--archive", other, "--quiet")
    assert stopped.returncode == 0, stopped.stderr
    job_id = re.search(r"job      (\S+):", stopped.stdout).group(1)
    assert "INCOMPLETE" in stopped.stdout
    resumed = beggar("search", "--resume", job_id, "--archive", other, "--quiet")
    assert resumed.returncode == 0, resumed.stderr
    again = beggar("archive", "census", job_id, "--archive", other)
    assert again.returncode == 0, again.stderr
    assert again.stdout.split("\n", 1)[1] == "\n".join(tally.report(whole)).split("\n", 1)[1] + "\n"


@pytest.mark.slow
def test_census_bad_input_is_one_line(tmp_path):
    bad_input(beggar("census", "pinochle", "--archive", tmp_path / "a.sqlite"), "unknown deck 'pinochle'")
    bad_input(beggar("census", "half", "--first", "3936933000", "--archive", tmp_path / "a.sqlite"),
              "'first' must be a whole number from 0 to 3936932999")
    bad_input(beggar("census", "half", "--split", "random", "--archive", tmp_path / "a.sqlite"),
              "split is even or a number of cards")
    bad_input(beggar("archive", "census", "nope", "--archive", tmp_path / "a.sqlite"), "a.sqlite: no such archive")
    sampled = beggar("search", job_file(tmp_path, deals=1000, chunk=1000), "--archive", tmp_path / "s.sqlite",
                     "--workers", "1", "--quiet")
    assert sampled.returncode == 0, sampled.stderr
    bad_input(beggar("archive", "census", "nope", "--archive", tmp_path / "s.sqlite"), "no census job 'nope' in it")
    bad_input(beggar("archive", "census", job_id(sampled.stdout), "--archive", tmp_path / "s.sqlite"),
              "is a sample job, not a census")


@pytest.mark.slow
def test_archive_census_plots(tmp_path):
    pytest.importorskip("matplotlib", reason="the plot extra: pip install '.[plot]'")
    archive = tmp_path / "c.sqlite"
    run = beggar("census", "3J 2Q", "--archive", archive, "--quiet")
    job_id = re.search(r"job      (\S+):", run.stdout).group(1)
    plot = tmp_path / "lengths.png"
    shown = beggar("archive", "census", job_id, "--archive", archive, "--plot", plot)
    assert shown.returncode == 0, shown.stderr
    assert Path(plot).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def _table(result):
    """A census's result table, without its first line (which names the job)."""
    assert result.returncode == 0, result.stderr
    return result.stdout[result.stdout.index("census   "):]


@pytest.mark.slow
def test_a_census_table_is_a_fact_of_the_deck_whatever_the_archive_held(tmp_path):
    deck = "7 2J 1Q 1K 1A"      # 47,520 deals, 84 of them loops, 5 distinct loops
    archive = tmp_path / "census.sqlite"
    first = _table(beggar("census", deck, "--chunk", "4000", "--archive", archive, "--quiet"))
    assert "loops    5 loops, reached from 84 loop deals" in first and "longest  " in first
    # The same census again on the same archive: every game is kept already, under the first job.
    assert _table(beggar("census", deck, "--chunk", "4000", "--archive", archive, "--quiet")) == first
    # Two at once on one archive.
    both = tmp_path / "both.sqlite"
    jobs = [start("census", deck, "--chunk", "4000", "--workers", "1", "--archive", both, "--quiet")
            for _ in range(2)]
    for job in jobs:
        out, err = job.communicate(timeout=120)
        assert job.returncode == 0, err
        assert out[out.index("census   "):] == first


@pytest.mark.slow
def test_which_games_a_census_keeps_does_not_depend_on_the_order_of_its_chunks(tmp_path):
    deck = "7 2J 1Q 1K 1A"      # 47,520 deals, 84 of them loops, 5 distinct loops
    runs = []
    for name, options in (("one", ["--workers", "1"]), ("two", ["--workers", "2"])):
        path = tmp_path / f"{name}.sqlite"
        assert beggar("census", deck, "--chunk", "2000", *options, "--archive", path, "--quiet").returncode == 0
        runs.append(kept(path))
    stopped = tmp_path / "stopped.sqlite"
    cut = beggar("census", deck, "--chunk", "2000", "--workers", "2", "--time", "0.01", "--archive", stopped,
                 "--quiet")
    assert "INCOMPLETE" in cut.stdout
    resumed = beggar("search", "--resume", job_id(cut.stdout), "--archive", stopped, "--quiet")
    assert resumed.returncode == 0, resumed.stderr
    runs.append(kept(stopped))
    assert runs[0] == runs[1] == runs[2] and len(runs[0]) == 10 + 84     # its top 10 and its loop deals


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


@pytest.mark.slow
def test_archive_census_of_no_such_job_says_so(tmp_path):
    archive = tmp_path / "a.sqlite"
    assert beggar("search", "--deals", 1000, "--workers", 1, "--archive", archive, "--quiet").returncode == 0
    bad_input(beggar("archive", "census", "nojob", "--archive", archive), "no census job 'nojob' in it")


def test_a_census_table_cut_short_says_how_to_see_every_loop_it_met(census_run):
    """It pointed at `archive list --loops --job`, which lists only the loops
    the census was the first to find, and 50 at most."""
    archive, _, job = census_run
    cut = in_process("archive", "census", job, "--loops", 2, "--archive", archive)
    assert cut.returncode == 0, cut.stderr
    listed = re.findall(r"^  loop \S+: period", cut.stdout, re.M)
    found = re.search(r"^  \.\.\. and (\d+) more loops \((beggar archive census .+)\)$", cut.stdout, re.M)
    assert len(listed) == 2 and found, cut.stdout
    every = in_process(*shlex.split(found.group(2))[1:])
    assert every.returncode == 0 and "more loops" not in every.stdout
    assert len(re.findall(r"^  loop \S+: period", every.stdout, re.M)) == 2 + int(found.group(1))
