"""What the archive's jobs add up to, for people: census tallies (tally) and
the odds of long games (odds); they read the archive and play no game
(docs/architecture.md)."""
