"""Small widgets and dialogs the tabs and the window share: forms built from registries, run picker, elided
label, generate box, predict panel, model summary, cluster dialog, data import."""
