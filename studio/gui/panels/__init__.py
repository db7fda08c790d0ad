"""The side panels: data, model, optimizer, training, hardware; and the run list."""
