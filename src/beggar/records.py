"""What a job's chunks keep, by its driver: the shape of a chunk record's
statistics (which fields it holds, and what kind of value each is), and the
words that say how a kept game was found. The drivers write these records
(search/drivers/); the archive's read-back checks every record it reads
against its job's driver's shape (archive/readback.py), but for a field of
the driver's own (OWN), which the driver checks as it reads it; a saved
game's name says how it was found (finds.py). Plain data, at the bottom of the
package, so that both sides read one description: a driver added is its
module, its line in drivers.ALL and its entry here.
"""

#: The kinds of value a record's field holds (archive/readback.py checks each):
STATUSES = "statuses"       # {status: games}
BINS = "bins"               # [games] in the length bins of lengths.py
HISTOGRAM = "histogram"     # {length (digits): games}
WORKERS = "workers"         # the workers the job ran on, 1 to readback.MOST_WORKERS
CENSUS_LOOPS = "census loops"   # {canonical state (hex): [deals, period tricks, period cards]}
WALK_LOOPS = "walk loops"   # [canonical state (hex)]
LONGEST = "longest"         # [cards, tricks, deal, rank] or None
COUNTS = "counts"           # an object of counts, nested (what a walk or a search reached)
OWN = "its driver's own"    # an object its driver checks by its own shape when it reads it (hunt.read_records)


class Shape:
    """A record's fields: those every such record holds, and those it may
    hold (added since the first records of its driver were kept), each with
    its kind."""

    def __init__(self, always, since=None):
        self.always = dict(always)
        self.since = dict(since or {})

    @property
    def fields(self):
        return {**self.always, **self.since}


_DEALT = Shape({"statuses": STATUSES, "lengths": BINS}, {"workers": WORKERS})
_WALKED = Shape({"growth": COUNTS, "loops": WALK_LOOPS})

#: {driver: [Shape]}: the shapes a chunk record of a job of that driver may
#: have (a hunt's of either kind: one made before the hunt went by rounds is
#: read as it was kept).
SHAPES = {
    "sample": [_DEALT],
    "climb": [_DEALT],
    "census": [Shape({"statuses": STATUSES, "cards": HISTOGRAM, "tricks": HISTOGRAM},
                     {"loops": CENSUS_LOOPS, "longest": LONGEST, "workers": WORKERS})],
    "grow": [_WALKED],
    "perturb": [_WALKED],
    "eliminate": [Shape({"ascent": COUNTS})],
    "hunt": [Shape({"hunt": OWN}), Shape({"growth": COUNTS, "loops": WALK_LOOPS, "hunt": OWN})],
}

#: How a kept game was found, by the driver its row names (a game of a
#: search's own: the job's driver; a family's longest member: extension).
HOW_FOUND = {
    "sample": "by random sampling",
    "climb": "by hill climbing",
    "census": "by a census",
    "extension": "by family extension",
    "basin": "by a basin search",
    "elimination": "by backward play with elimination",
}


def how_found(driver):
    """'by a basin search': how a game kept by `driver` was found, in words."""
    if not driver:
        return ""
    return HOW_FOUND.get(driver, f"by {driver}")
