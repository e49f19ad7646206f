"""A player written apart from beggar's engines, from the rules alone
(shared/DESIGN.md, section 1), so that the finds beggar ships are checked by
code that shares nothing with the engines that found them: no beggar import,
cards as codes 0 (plain) to 4 (ace), each code its penalty.

play(hands) -> (status, cards, tricks, entry, period): status "finished" or
"loop"; entry and period (tricks, cards) for a loop, else None.
"""


def play(hands, most_tricks=10 ** 6):
    hands = [list(hand) for hand in hands]
    players = len(hands)
    out = [not hand for hand in hands]
    leader, cards, tricks = 0, 0, 0
    seen = {}

    def after(seat):
        seat = (seat + 1) % players
        while out[seat]:
            seat = (seat + 1) % players
        return seat

    while tricks < most_tricks:
        state = (tuple(tuple(hand) for hand in hands), leader)
        if state in seen:
            entry_tricks, entry_cards = seen[state]
            return "loop", cards, tricks, (entry_tricks, entry_cards), (tricks - entry_tricks, cards - entry_cards)
        seen[state] = (tricks, cards)
        pile, turn, owed, court_by = [], leader, 0, None
        while True:
            if not hands[turn]:
                # No card to lay: out; what was owed passes to the next player still in.
                out[turn] = True
                if sum(not gone for gone in out) == 1:
                    winner = out.index(False)
                    hands[winner].extend(pile)
                    return "finished", cards, tricks + bool(pile), None, None
                turn = after(turn)
                continue
            card = hands[turn].pop(0)
            pile.append(card)
            cards += 1
            if card:
                owed, court_by = card, turn
                turn = after(turn)
            elif owed:
                owed -= 1
                if owed == 0:
                    break
            else:
                turn = after(turn)
        hands[court_by].extend(pile)
        tricks += 1
        leader = court_by
        for seat, hand in enumerate(hands):
            out[seat] = out[seat] or not hand
        if sum(not gone for gone in out) == 1:
            return "finished", cards, tricks, None, None
    raise RuntimeError(f"no end and no repeat within {most_tricks} tricks")
