"""Extra tabs of the main window, imported lazily: ``(title, "module:ClassName")``.

Each class is built as ``Cls(session, parent)``; its module must not import torch at import time.
"""

EXTRA_TABS: list[tuple[str, str]] = [
    ("Landscape", "studio.gui.tabs.landscape:LandscapeTab"),
    ("Evaluation", "studio.gui.tabs.evaluation:EvaluationTab"),
    ("Data", "studio.gui.tabs.data:DataPreview"),
    ("Teaching lab", "studio.gui.demos.lab:TeachingLab"),
    ("Compare", "studio.gui.tabs.compare:CompareTab"),
    ("Queue", "studio.gui.tabs.queue:QueueTab"),
    ("Compression", "studio.gui.tabs.compression:CompressionTab"),
    ("Scaling laws", "studio.gui.tabs.scaling_laws:ScalingLawsTab"),
    ("Data-parallel", "studio.gui.tabs.data_parallel:DataParallelTab"),
]
