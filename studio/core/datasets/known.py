"""The classic datasets Studio knows by name: class names and how to recognise their files.

Torch-free: the catalog, the drop detector and the GUI read it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Known:
    name: str  # the registry name
    title: str
    classes: tuple[str, ...]
    shape: tuple[int, int, int]
    sizes: tuple[int, int]  # (train, test) samples
    description: str
    info: str
    local_dirs: tuple[str, ...] = ()  # folders that may already hold the files (distribution packages)


_DIGITS = tuple(str(i) for i in range(10))
_EMNIST_BALANCED = _DIGITS + tuple("ABCDEFGHIJKLMNOPQRSTUVWXYZ") + tuple("abdefghnqrt")
_CIFAR100 = (
    "apple aquarium_fish baby bear beaver bed bee beetle bicycle bottle bowl boy bridge bus butterfly camel can "
    "castle caterpillar cattle chair chimpanzee clock cloud cockroach couch crab crocodile cup dinosaur dolphin "
    "elephant flatfish forest fox girl hamster house kangaroo keyboard lamp lawn_mower leopard lion lizard lobster "
    "man maple_tree motorcycle mountain mouse mushroom oak_tree orange orchid otter palm_tree pear pickup_truck "
    "pine_tree plain plate poppy porcupine possum rabbit raccoon ray road rocket rose sea seal shark shrew skunk "
    "skyscraper snail snake spider squirrel streetcar sunflower sweet_pepper table tank telephone television tiger "
    "tractor train trout tulip turtle wardrobe whale willow_tree wolf woman worm"
).split()

KNOWN: dict[str, Known] = {k.name: k for k in (
    Known("mnist", "MNIST", _DIGITS, (1, 28, 28), (60_000, 10_000),
          "MNIST: 70,000 grey 28×28 handwritten digits, 10 classes (downloaded on first use)",
          "LeCun, Cortes & Burges 1998. The classic first dataset."),
    Known("fashion_mnist", "Fashion-MNIST",
          ("T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot"),
          (1, 28, 28), (60_000, 10_000),
          "Fashion-MNIST: 70,000 grey 28×28 images of clothes, 10 classes (Debian's package or a download)",
          "Xiao, Rasul & Vollgraf 2017. MIT licence. A drop-in, harder replacement for MNIST.",
          local_dirs=("/usr/share/datasets/fashion-mnist",)),
    Known("kmnist", "KMNIST", ("o", "ki", "su", "tsu", "na", "ha", "ma", "ya", "re", "wo"), (1, 28, 28),
          (60_000, 10_000), "Kuzushiji-MNIST: 70,000 grey 28×28 cursive Japanese characters, 10 classes",
          "Clanuwat et al. 2018, 'Deep Learning for Classical Japanese Literature'. CC BY-SA 4.0."),
    Known("emnist_balanced", "EMNIST (balanced)", _EMNIST_BALANCED, (1, 28, 28), (112_800, 18_800),
          "EMNIST balanced: 131,600 grey 28×28 handwritten digits and letters, 47 classes",
          "Cohen et al. 2017, 'EMNIST: an extension of MNIST to handwritten letters'."),
    Known("cifar10", "CIFAR-10",
          ("airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse", "ship", "truck"),
          (3, 32, 32), (50_000, 10_000), "CIFAR-10: 60,000 colour 32×32 photos, 10 classes",
          "Krizhevsky 2009, 'Learning Multiple Layers of Features from Tiny Images'."),
    Known("cifar100", "CIFAR-100", tuple(_CIFAR100), (3, 32, 32), (50_000, 10_000),
          "CIFAR-100: 60,000 colour 32×32 photos, 100 fine classes",
          "Krizhevsky 2009, 'Learning Multiple Layers of Features from Tiny Images'."),
    Known("svhn", "SVHN", _DIGITS, (3, 32, 32), (73_257, 26_032),
          "SVHN: 99,289 colour 32×32 house-number digits from Street View, 10 classes",
          "Netzer et al. 2011, 'Reading Digits in Natural Images with Unsupervised Feature Learning'."),
)}


def recognise_idx(parts: list[str]) -> str | None:
    """The catalog name for IDX files whose path (lower-case parts and file names) says which they are."""
    text = "/".join(p.lower() for p in parts)
    if "emnist" in text:
        return "emnist_balanced" if "balanced" in text else None
    if "fashion" in text:
        return "fashion_mnist"
    if "kmnist" in text or "kuzushiji" in text:
        return "kmnist"
    if "mnist" in text:
        return "mnist"
    return None
