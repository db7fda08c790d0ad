"""The Qt user interface. Holds no training state; never imports torch at start-up."""
