"""core/host/outfiles.py: what an export may write over, and that a failed write leaves nothing behind."""

from __future__ import annotations

import os
import socket

import pytest

from studio.core.errors import OutputError
from studio.core.host.outfiles import check_target, writing


def test_only_a_regular_file_or_a_new_name_is_a_target(tmp_path):
    (tmp_path / "file").write_text("old")
    assert check_target(tmp_path / "file") == tmp_path / "file"
    assert check_target(tmp_path / "new" / "deeper" / "x.csv").parent.is_dir()  # folders are made
    (tmp_path / "dir").mkdir()
    os.symlink(tmp_path / "file", tmp_path / "link")
    os.mkfifo(tmp_path / "fifo")
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(tmp_path / "sock"))
    try:
        for name, kind in (("dir", "a folder"), ("link", "a symbolic link"), ("fifo", "a named pipe"),
                           ("sock", "a socket")):
            with pytest.raises(OutputError, match=kind):
                check_target(tmp_path / name)
    finally:
        sock.close()
    with pytest.raises(OutputError, match="a device"):
        check_target(os.devnull)


def test_a_failed_write_removes_its_temp_file_and_keeps_the_old_one(tmp_path):
    target = tmp_path / "model.pt"
    target.write_text("old")
    with pytest.raises(ZeroDivisionError), writing(target) as tmp:
        tmp.write_text("half")
        1 / 0  # noqa: B018 - any failure mid-write
    assert os.listdir(tmp_path) == ["model.pt"] and target.read_text() == "old"
    with writing(target) as tmp:
        tmp.write_text("new")
    assert os.listdir(tmp_path) == ["model.pt"] and target.read_text() == "new"


def test_tensorboard_onto_a_fifo_is_refused(tmp_path):
    from studio.engine.tasks.export import _writable_folder

    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(OutputError, match="is not a folder"):
        _writable_folder(tmp_path / "fifo" / "RUN")
