"""The classic datasets (MNIST, Fashion-MNIST, KMNIST, EMNIST balanced, CIFAR-10/100, SVHN).

On first use a dataset is taken from files already on the machine (Debian's dataset-fashion-mnist
package, a folder a person imported) or downloaded through ``torchvision.datasets`` with progress,
then stored once in the cache like an imported dataset. Offline, a DataError says so and how to
import the files by hand. Importable without torch (torchvision is imported when downloading).
"""

from __future__ import annotations

import contextlib
import os
import socket
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

from studio.core.contracts.jobs import ImportReport
from studio.core.datasets import cache, splits
from studio.core.datasets.known import KNOWN
from studio.core.errors import DataError

# registry name → (torchvision class, keyword arguments)
TORCHVISION: dict[str, tuple[str, dict[str, Any]]] = {
    "mnist": ("MNIST", {}),
    "fashion_mnist": ("FashionMNIST", {}),
    "kmnist": ("KMNIST", {}),
    "emnist_balanced": ("EMNIST", {"split": "balanced"}),
    "cifar10": ("CIFAR10", {}),
    "cifar100": ("CIFAR100", {}),
    "svhn": ("SVHN", {}),
}
TIMEOUT_S = 5.0


def _known(name: str):
    if name not in KNOWN:
        raise DataError(f"{name!r} is not a catalog dataset; choose one of: {', '.join(KNOWN)}")
    return KNOWN[name]


def download_urls(name: str) -> list[str]:
    """The URLs torchvision downloads ``name`` from (read from its dataset class)."""
    import torchvision.datasets as tvd

    cls_name, kwargs = TORCHVISION[name]
    cls = getattr(tvd, cls_name)
    if hasattr(cls, "mirrors"):
        return [cls.mirrors[0] + fname for fname, _ in cls.resources]
    if cls_name == "SVHN":
        return [cls.split_list[s][0] for s in ("train", "test")]
    return [cls.url]


def _import_hint(name: str, lead: str = "") -> str:
    hint = (f"{lead}download the files on a machine with internet access and drop the folder that holds them on "
            "Studio's window (or run `studio data import FOLDER`): Studio recognises torchvision's raw folders, "
            "the IDX files and the CIFAR/SVHN files themselves.")
    if name == "fashion_mnist":
        hint += " On Debian or Ubuntu, `apt install dataset-fashion-mnist` puts them in /usr/share/datasets."
    return hint[0].upper() + hint[1:]


def offline_message(name: str, why: str) -> str:
    title = _known(name).title
    return f"{title} is not on this machine and cannot be downloaded: this machine is offline ({why}). " \
        + _import_hint(name)


def failed_download_message(name: str, why: str) -> str:
    """The host answered but the files did not arrive whole (an HTTP error, a broken or corrupted file)."""
    return f"{_known(name).title} could not be downloaded ({why}); nothing was saved. " \
        + _import_hint(name, "try again later, or ")


def check_online(name: str, urls: list[str] | None = None) -> None:
    """DataError with the offline message unless the first download host answers (or STUDIO_OFFLINE is set)."""
    if os.environ.get("STUDIO_OFFLINE", "") not in ("", "0"):
        raise DataError(offline_message(name, "STUDIO_OFFLINE is set"))
    url = urllib.parse.urlparse((urls or download_urls(name))[0])
    port = url.port or (443 if url.scheme == "https" else 80)
    try:
        socket.create_connection((url.hostname, port), timeout=TIMEOUT_S).close()
    except OSError as err:
        raise DataError(offline_message(name, f"{url.hostname} cannot be reached: {err.strerror or err}")) from None


def local_folders(name: str) -> list[Path]:
    """Folders that may already hold ``name``'s files: distribution packages (Debian's
    /usr/share/datasets/fashion-mnist) and a torchvision root named by STUDIO_TORCHVISION_ROOT."""
    folders = [Path(p) for p in _known(name).local_dirs]
    env = os.environ.get("STUDIO_TORCHVISION_ROOT")
    if env:
        folders.append(Path(env))
    return [f for f in folders if f.is_dir()]


@contextlib.contextmanager
def _download_progress(progress: Any) -> Iterator[None]:
    """Route torchvision's downloads through a copy that reports bytes and can be cancelled."""
    import urllib.request

    import torchvision.datasets.utils as tvu

    original = getattr(tvu, "_urlretrieve", None)

    def urlretrieve(url: str, filename: Any, chunk_size: int = 1 << 16) -> None:
        request = urllib.request.Request(url, headers={"User-Agent": getattr(tvu, "USER_AGENT", "studio")})
        with urllib.request.urlopen(request, timeout=30) as response, open(filename, "wb") as fh:
            progress.stage(f"downloading {os.path.basename(str(filename))}", int(response.length or 0))
            while chunk := response.read(chunk_size):
                fh.write(chunk)
                progress.advance(len(chunk))

    if original is not None:
        tvu._urlretrieve = urlretrieve
    try:
        yield
    finally:
        if original is not None:
            tvu._urlretrieve = original


def _arrays(ds: Any, name: str) -> tuple[Any, Any]:
    """(x uint8 (N, C, H, W), y int64) of a torchvision dataset object."""
    import numpy as np

    data = ds.data.numpy() if hasattr(ds.data, "numpy") else np.asarray(ds.data)
    labels = getattr(ds, "targets", None)
    if labels is None:
        labels = ds.labels
    labels = labels.numpy() if hasattr(labels, "numpy") else np.asarray(labels)
    if data.ndim == 3:
        if name == "emnist_balanced":
            data = data.transpose(0, 2, 1)  # EMNIST stores images transposed
        data = data[:, None]
    elif data.shape[-1] == 3:
        data = data.transpose(0, 3, 1, 2)
    return np.ascontiguousarray(data, dtype=np.uint8), labels.astype(np.int64)


def download(name: str, progress: Any = None) -> ImportReport:
    """Download ``name`` through torchvision into a staging folder and store it in the cache."""
    import numpy as np

    from studio.core.datasets.importers.pipeline import report, save
    from studio.core.datasets.importers.progress import import_progress
    from studio.core.datasets.importers.result import TEST, TRAIN, Imported

    prog = import_progress(progress)
    known = _known(name)
    check_online(name)
    import torchvision.datasets as tvd

    cls_name, kwargs = TORCHVISION[name]
    cls = getattr(tvd, cls_name)
    with cache.staging() as stage, _download_progress(prog):
        root = stage / "torchvision"
        try:
            if cls_name == "SVHN":
                parts = [cls(root, split=s, download=True) for s in ("train", "test")]
            else:
                parts = [cls(root, train=t, download=True, **kwargs) for t in (True, False)]
        except (OSError, RuntimeError) as err:
            raise DataError(failed_download_message(name, " ".join(str(err).split()) or type(err).__name__)) from None
        prog.stage(f"converting {known.title}")
        (xt, yt), (xs, ys) = (_arrays(p, name) for p in parts)
        imported = Imported(np.concatenate([xt, xs]), np.concatenate([yt, ys]),
                            np.concatenate([np.full(len(yt), TRAIN, np.uint8), np.full(len(ys), TEST, np.uint8)]),
                            list(known.classes), catalog=name,
                            description=f"{known.title} downloaded through torchvision")
        imported.validate(known.title)
        data = save(stage, imported, name, "catalog", f"catalog:{name}", download_urls(name)[0], "download", prog)
    return report(data, cached=False)


def ensure(name: str, progress: Any = None) -> ImportReport:
    """The cache manifest of catalog dataset ``name``: cached, from local files, or downloaded."""
    from studio.core.datasets.importers.options import ImportOptions
    from studio.core.datasets.importers.pipeline import import_path

    _known(name)
    found = cache.manifest(name)
    if found and found.get("kind") == "catalog":
        return cast(ImportReport, found)  # a manifest holds the report's keys (and the cache's own)
    errors = []
    for folder in local_folders(name):
        try:
            return import_path(folder, ImportOptions(name=name), progress)
        except DataError as err:
            errors.append(f"{folder}: {err}")
    try:
        return download(name, progress)
    except DataError as err:
        if errors:
            raise DataError(f"{err} (Local files were tried too: {'; '.join(errors)})") from None
        raise


def is_cached(name: str) -> bool:
    found = cache.manifest(name)
    return bool(found and found.get("kind") == "catalog")


def load_catalog(name: str, seed: int = 0, val_fraction: float = splits.DEFAULT_VAL,
                 test_fraction: float = splits.DEFAULT_TEST) -> Any:
    """The catalog dataset ``name`` as ArrayData (fetched into the cache on first use)."""
    from studio.core.datasets.imported import load_imported

    ensure(name)
    return load_imported(name, seed, val_fraction, test_fraction)
