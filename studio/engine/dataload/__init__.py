"""The input pipeline made measurable (issue 24, part 3): a DataLoader worker sweep over image files beside
Studio's device-resident path. ``sweep.run_sweep`` is the entry; ``measure`` runs in its own process."""
