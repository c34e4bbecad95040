"""18xx family engine: titles as data plus hooks, games as replays of an action log."""
