"""``child_env.installed()`` finds Studio's install record on ``sys.path`` without importing ``importlib.metadata``
(its email/zipfile/csv imports were a fifth of the window's start-up), and agrees with it."""

from __future__ import annotations

import importlib.metadata
import sys

from studio.core.host import child_env


def _metadata_says() -> bool:
    try:
        importlib.metadata.version("studio")
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


def test_installed_agrees_with_importlib_metadata(tmp_path, monkeypatch):
    assert child_env.installed() == _metadata_says()
    monkeypatch.setattr(sys, "path", [str(tmp_path), str(tmp_path / "missing")])
    assert not child_env.installed() and not _metadata_says()
    record = tmp_path / "studio-1.2.3.dist-info"
    record.mkdir()
    (record / "METADATA").write_text("Metadata-Version: 2.1\nName: studio\nVersion: 1.2.3\n")
    assert child_env.installed() and _metadata_says()
    (record / "METADATA").unlink()
    record.rmdir()
    (tmp_path / "studio_extras-1.0.dist-info").mkdir()  # another package whose name starts alike
    assert not child_env.installed()
