"""Training processes: launcher, trainer, protocol, sinks. No Qt; torch only inside workers."""
