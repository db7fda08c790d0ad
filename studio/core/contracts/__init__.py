"""Per feature, the small typed contract the GUI, the CLI and the engine all use: the request with its
limits (stated once), the frames it sends while it works, and its result. Torch-free and Qt-free."""
