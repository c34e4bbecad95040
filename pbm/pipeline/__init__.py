"""The turn pipeline: the weekly cycle (ingest → close → resolve → render → send → archive),
the archive and the demo.  It drives the game kinds; no game kind imports it."""
