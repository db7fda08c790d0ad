"""The domain: configs, registries, datasets, models, optimizers, run store. No Qt, no processes."""
