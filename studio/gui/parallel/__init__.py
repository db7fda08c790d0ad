"""The Parallelism lab's pages (``gui/tabs/parallel_lab.PAGES``): one module per page."""
