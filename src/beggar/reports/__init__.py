"""What the archive's jobs add up to, for people: census tallies (tally) and
the odds of long games (odds); read, never played (docs/architecture.md)."""
