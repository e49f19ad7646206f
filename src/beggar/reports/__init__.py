"""What the archive's jobs add up to, for people: the census table of a
census job (tally) and the odds of long games from the length histograms
(odds). They read the archive and the jobs' specs and play no game; the
command prints them (beggar census, archive census, stats, archive report)."""
