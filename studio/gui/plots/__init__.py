"""pyqtgraph plots."""
