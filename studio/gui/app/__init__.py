"""The roof of the GUI: the window shell (main window, navigation, status bar), its actions and menus, dialogs
(cluster script, help), remembered settings, the single-instance hand-off and start-up. It composes the views
below it; nothing below imports it."""
