"""The application shell: main window (composition only), session, bridge, actions, status bar, theme,
settings, single instance, message wording, following the store, and the one job binding."""
