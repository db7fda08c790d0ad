"""Extra tabs of the main window, imported lazily: ``(title, "module:ClassName")``.

Each class is built as ``Cls(session, parent)``; its module must not import torch at import time.
"""

EXTRA_TABS: list[tuple[str, str]] = [
    ("Landscape", "studio.gui.landscape_tab:LandscapeTab"),
    ("Evaluation", "studio.gui.evaluation_tab:EvaluationTab"),
    ("Data", "studio.gui.data_preview:DataPreview"),
    ("Teaching lab", "studio.gui.demos.lab:TeachingLab"),
    ("Compare", "studio.gui.compare_tab:CompareTab"),
    ("Queue", "studio.gui.queue_tab:QueueTab"),
    ("Compression", "studio.gui.compression_tab:CompressionTab"),
    ("Scaling laws", "studio.gui.scaling_laws_tab:ScalingLawsTab"),
    ("Data-parallel", "studio.gui.data_parallel_tab:DataParallelTab"),
]
