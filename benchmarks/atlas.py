"""The atlas of loop families (results/atlas-DECK.json): every family of a
deck's two-player loops known, from the loops shipped with beggar and those
of the archives given, with how many loops of it are known, their periods
and balances, what its seats reached at tables of 2, 3 and 4 (the hunts'
seats and basin searches kept in those archives), and an example deal: the
state one trick on from the canonical state of its first loop (by key),
which loops from its first trick. The file is a saved-games file, one game a family, so that `beggar
verify results/atlas-standard.json` replays every example on both engines;
each game's provenance holds the family's figures (tests/test_families.py
holds them to the loops).

    python3 benchmarks/atlas.py --deck standard --archive /tmp/hunt.sqlite --out results/atlas-standard.json
    python3 benchmarks/atlas.py --deck camicia --out results/atlas-camicia.json

With --deals FILE, the balanced deals of three and four players that never
end into the families new to the loops shipped (the first kept of each
family at each table, by game id) are written there too, each with its
job and --command as its provenance.

Printed: the families, largest first, as docs/loops.md shows them.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from beggar import __version__, engine, family, finds, loops  # noqa: E402
from beggar.archive import Archive  # noqa: E402
from beggar.cycle import deal_of, key_deal  # noqa: E402
from beggar.deal import Deal  # noqa: E402
from beggar.search.drivers.hunt import seats as hunt_seats  # noqa: E402
from beggar.decks import Deck  # noqa: E402
from beggar.finds import known_loops  # noqa: E402
from beggar.savefile import SavedGame  # noqa: E402
from beggar.search.drivers import aim  # noqa: E402


def gather(deck, archives):
    """{key: Loop} of the deck's two-player loops, and {(key, players): (smallest, deals)}
    of every seat and basin search the archives kept (the best of each)."""
    keys = set(known_loops(deck))
    seats = {}
    for path in archives:
        with Archive(path, readonly=True) as archive:
            for row in archive.loops(deck=deck):
                keys.add(row["key"])
                if row["basin_states"] is not None:
                    best = seats.get((row["key"], 2), (None, 0))
                    seats[(row["key"], 2)] = (best[0], max(best[1], row["basin_deals"] or 0))
            for job_id, spec in archive.jobs():
                if spec["driver"] != "hunt" or spec["deck"] != deck:
                    continue
                for seat in hunt_seats(archive, deck, job_id):
                    old = seats.get((seat["loop"], seat["players"]), (None, 0))
                    smallest = max((value for value in (old[0], seat["smallest"]) if value is not None), default=None)
                    seats[(seat["loop"], seat["players"])] = (smallest, max(old[1], seat["deals"]))
    # The balanced deals shipped with beggar (published and found), each at its table.
    shipped = {}
    for game in [*finds.shipped(), *(SavedGame(deal) for _, deal in loops.published(deck))]:
        sizes = {len(hand) for hand in game.deal.hands}
        if game.deal.deck_written() == deck and max(sizes) - min(sizes) <= 1 and \
                engine.play(game.deal).status == "loop":
            key = (loops.of_deal(game.deal).hex, game.deal.players)
            shipped.setdefault(key, set()).add(str(game.deal))
    for (key, players), deals in shipped.items():
        old = seats.get((key, players), (None, 0))
        seats[(key, players)] = (aim.need(Deck.parse(deck).total, players), max(old[1], len(deals)))
    found = {}
    for key in sorted(keys):
        loop = loops.of_deal(key_deal(key))
        if loop.players == 2:
            found[loop.hex] = loop
    return found, seats


def atlas(deck, archives):
    """[(Family, [Loop], {players: (best smallest, deals)})], largest family first."""
    found, seats = gather(deck, archives)
    by_family = {}
    for loop in found.values():
        by_family.setdefault(family.of_loop(loop), []).append(loop)
    out = []
    for named, members in by_family.items():
        tables = {}
        for players in (2, 3, 4):
            reached = [seats[(loop.hex, players)] for loop in members if (loop.hex, players) in seats]
            if reached:
                tables[players] = (max((smallest for smallest, _ in reached if smallest is not None), default=None),
                                   sum(deals for _, deals in reached))
        out.append((named, sorted(members, key=lambda loop: loop.hex), tables))
    return sorted(out, key=lambda item: (-len(item[1]), item[0].name))


def game_of(deck, named, members, tables):
    """The saved game of a family: its first loop's canonical state, its figures in the name and provenance."""
    example = members[0]
    # A state of its cycle one trick on from the canonical state: the canonical state itself may be
    # shipped already (a find is shipped once), this one is not.
    deal = deal_of(*example.states[1 % len(example.states)])
    outcome = engine.play(deal)
    periods = sorted({loop.period[0] for loop in members})
    balances = sorted({aim.balance(loop.states) for loop in members})
    seated = {str(players): {"best": best, "deals": deals} for players, (best, deals) in tables.items()}
    words = "; ".join(f"at {players}: best {best if best is not None else '-'}, {deals:,} balanced deals"
                      for players, (best, deals) in sorted(tables.items()))
    return {"format": "beggar-game", "version": 1,
            "name": f"atlas-{deck}: family {named.name}, {len(members):,} loops known (periods "
                    f"{', '.join(map(str, periods))}; balance {', '.join(map(str, balances))})"
                    + (f"; {words}" if words else "") + "; a state of its first loop's cycle",
            "deal": str(deal), "rules": {"max_cards": None, "max_tricks": None, "detect_loops": True},
            "expected": outcome.as_dict(),
            "provenance": {"deck": deck, "players": 2, "family": named.name, "turn_tricks": named.tricks,
                           "turn_cards": named.cards, "loops": len(members), "periods": periods,
                           "balances": balances, "seats": seated, "beggar": __version__,
                           "file": f"results/atlas-{deck}.json"}}


def new_family_deals(deck, archives, command):
    """The saved games (dicts) of the first balanced deal of 3 and of 4 players kept in `archives`
    into each family no loop shipped is of."""
    shipped = {family.of_loop(loops.of_deal(key_deal(key))).name for key in known_loops(deck)}
    first = {}
    for path in archives:
        with Archive(path, readonly=True) as archive:
            for players in (3, 4):
                for game in sorted(archive.games(deck=deck, players=players, status="loop"), key=lambda g: g["id"]):
                    deal = Deal.parse(game["deal"])
                    sizes = {len(hand) for hand in deal.hands}
                    if max(sizes) - min(sizes) > 1:
                        continue
                    named = family.of_loop(loops.of_deal(deal)).name
                    if named not in shipped and (named, players) not in first:
                        first[(named, players)] = (deal, game)
    games = []
    for (named, players), (deal, game) in sorted(first.items()):
        outcome = engine.play(deal)
        games.append({"format": "beggar-game", "version": 1,
                      "name": f"families-{deck}-3-4: a balanced deal of {players} players that never ends, into a "
                              f"loop of family {named} (the first of that family and table the hunt kept)",
                      "deal": str(deal), "rules": {"max_cards": None, "max_tricks": None, "detect_loops": True},
                      "expected": outcome.as_dict(),
                      "provenance": {"job": game["job"], "driver": game["driver"], "found_at": game["found_at"],
                                     "deck": deck, "players": players, "family": named, "command": command,
                                     "file": f"results/families-{deck}-3-4.json"}})
    return games


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deck", default="standard")
    parser.add_argument("--archive", action="append", default=[], help="an archive whose loops and seats count")
    parser.add_argument("--out", help="the atlas file to write")
    parser.add_argument("--deals", help="the file of balanced deals of 3 and 4 players into new families to write")
    parser.add_argument("--command", default="", help="the command that found them, for --deals' provenance")
    args = parser.parse_args()
    deck = str(Deck.parse(args.deck))
    rows = atlas(deck, args.archive)
    print(f"{deck} deck: {sum(len(members) for _, members, _ in rows):,} loops in {len(rows)} families")
    print(f"{'family':20} {'loops':>6} {'periods':18} {'balance':10} {'at 2':>10} {'at 3':>10} {'at 4':>10}")
    for named, members, tables in rows:
        cells = [f"{tables[p][0] if tables[p][0] is not None else '-'}/{tables[p][1]:,}" if p in tables else ""
                 for p in (2, 3, 4)]
        print(f"{named.name:20} {len(members):>6,} {','.join(map(str, sorted({m.period[0] for m in members})))[:18]:18} "
              f"{','.join(map(str, sorted({aim.balance(m.states) for m in members}))):10} "
              + " ".join(f"{cell:>10}" for cell in cells))
    if args.out:
        games = [game_of(deck, named, members, tables) for named, members, tables in rows]
        Path(args.out).write_text(json.dumps(games, indent=1) + "\n")
        print(f"{len(games)} families written to {args.out}")
    if args.deals:
        games = new_family_deals(deck, args.archive, args.command)
        Path(args.deals).write_text(json.dumps(games, indent=1) + "\n")
        print(f"{len(games)} balanced deals of 3 and 4 players into new families written to {args.deals}")


if __name__ == "__main__":
    main()
