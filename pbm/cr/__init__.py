"""Continental Rails II: map, rules engine, orders, computer players."""
