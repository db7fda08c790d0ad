"""Zip and tar archives: both layouts inside, and hostile entries refused with nothing written
outside the cache."""

from __future__ import annotations

import io
import os
import stat
import tarfile
import zipfile

import pytest

from studio.core.datasets import cache
from studio.core.datasets.importers.pipeline import import_path
from studio.core.errors import DataError
from tests.unit import import_fixtures as fx


def _zip_folder(folder, zip_path, prefix=""):
    with zipfile.ZipFile(zip_path, "w") as zf:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                zf.write(path, prefix + str(path.relative_to(folder)))
    return zip_path


def _no_leftovers():
    base = cache.root(create=False)
    return sorted(p.name for p in base.iterdir() if p.name.startswith(".")) if base.exists() else []


def test_zip_of_class_folders(tmp_path):
    fx.image_folder(tmp_path / "src", per_class=4)
    report = import_path(_zip_folder(tmp_path / "src", tmp_path / "animals.zip", prefix="animals/"))
    assert report["name"] == "animals"
    assert report["num_samples"] == 12 and report["classes"] == ["cat", "dog", "emu"]
    assert _no_leftovers() == []  # the unpacked copy is gone; only the entry remains
    assert sorted(p.name for p in (cache.root() / "animals").iterdir()) == ["manifest.json", "split.npy", "x.npy",
                                                                             "y.npy"]


def test_tar_gz_of_train_test_layout(tmp_path):
    fx.image_folder(tmp_path / "src" / "train", per_class=5)
    fx.image_folder(tmp_path / "src" / "test", per_class=2, seed=3)
    archive = tmp_path / "split.tar.gz"
    with tarfile.open(archive, "w:gz") as tf:
        tf.add(tmp_path / "src", arcname="split")
    report = import_path(archive)
    assert report["name"] == "split"
    assert report["source_splits"] == {"train": 15, "val": 0, "test": 6}


def _zip_with(tmp_path, name, member, data=b"x"):
    fx.image_folder(tmp_path / "src", per_class=2)
    path = _zip_folder(tmp_path / "src", tmp_path / name)
    with zipfile.ZipFile(path, "a") as zf:
        zf.writestr(member, data)
    return path


@pytest.mark.parametrize("member", ["../escaped.png", "cat/../../escaped.png", "/tmp/escaped_abs.png",
                                    "C:/escaped.png"])
def test_zip_entries_that_escape_are_refused(tmp_path, member):
    path = _zip_with(tmp_path, "evil.zip", member)
    with pytest.raises(DataError, match="leaves the archive's folder.*refuses"):
        import_path(path)
    assert not (tmp_path / "escaped.png").exists() and not os.path.exists("/tmp/escaped_abs.png")
    assert not (cache.root().parent / "escaped.png").exists()
    assert cache.entries() == [] and _no_leftovers() == []


def test_zip_symlink_is_refused(tmp_path):
    fx.image_folder(tmp_path / "src", per_class=2)
    path = _zip_folder(tmp_path / "src", tmp_path / "link.zip")
    with zipfile.ZipFile(path, "a") as zf:
        info = zipfile.ZipInfo("cat/link.png")
        info.external_attr = (stat.S_IFLNK | 0o777) << 16
        zf.writestr(info, "/etc/passwd")
    with pytest.raises(DataError, match="symbolic link"):
        import_path(path)
    assert cache.entries() == [] and _no_leftovers() == []


@pytest.mark.parametrize("kind", ["sym", "hard", "dotdot"])
def test_tar_links_and_traversal_are_refused(tmp_path, kind):
    fx.image_folder(tmp_path / "src", per_class=2)
    archive = tmp_path / "evil.tar.gz"
    with tarfile.open(archive, "w:gz") as tf:
        tf.add(tmp_path / "src", arcname="data")
        info = tarfile.TarInfo("data/cat/evil.png" if kind != "dotdot" else "data/../../evil.png")
        if kind == "sym":
            info.type, info.linkname = tarfile.SYMTYPE, "/etc/passwd"
            tf.addfile(info)
        elif kind == "hard":
            info.type, info.linkname = tarfile.LNKTYPE, "../../outside"
            tf.addfile(info)
        else:
            info.size = 3
            tf.addfile(info, io.BytesIO(b"bad"))
    with pytest.raises(DataError, match="link|leaves the archive's folder"):
        import_path(archive)
    assert not (tmp_path / "evil.png").exists()
    assert cache.entries() == [] and _no_leftovers() == []


def test_a_broken_archive(tmp_path):
    (tmp_path / "broken.zip").write_bytes(b"PK\x03\x04 this is not really a zip")
    with pytest.raises(DataError, match="not a readable|not a dataset"):
        import_path(tmp_path / "broken.zip")
    assert cache.entries() == []


def test_an_archive_without_a_dataset(tmp_path):
    with zipfile.ZipFile(tmp_path / "docs.zip", "w") as zf:
        zf.writestr("readme.txt", "hello")
        zf.writestr("more/notes.txt", "hello")
    with pytest.raises(DataError, match="docs.zip"):
        import_path(tmp_path / "docs.zip")
    assert _no_leftovers() == []
