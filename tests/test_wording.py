"""Small things a user reads: help texts, plurals, the JSON of play."""

import json

import pytest

from helpers import MANN_WU, beggar


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
