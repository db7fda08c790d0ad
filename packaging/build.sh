#!/usr/bin/env bash
# Build Studio's one-folder bundle with PyInstaller in a throwaway venv (build/bundle-venv).
#
#   bash packaging/build.sh                 # → dist/studio/studio (+ dist/studio/_internal/)
#   TORCH_SPEC=torch==2.13.0 bash packaging/build.sh
#
# The venv gets a CPU-only torch (on this machine the 2.13.0+cpu wheel lies in /opt/wheels; elsewhere
# pip picks the wheel from TORCH_INDEX, PyTorch's CPU index by default), PySide6-Essentials, pyqtgraph,
# numpy and PyInstaller, and no torchvision: the bundle is ~1 GB instead of ~6 GB with the CUDA build.
# For a CUDA bundle set TORCH_SPEC to a CUDA build (and expect several GB).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
VENV=${STUDIO_BUNDLE_VENV:-$ROOT/build/bundle-venv}
PYTHON=${PYTHON:-python3}
TORCH_SPEC=${TORCH_SPEC:-}
if [ -z "$TORCH_SPEC" ]; then
  local_wheel=$(ls /opt/wheels/torch-*+cpu-*.whl 2>/dev/null | head -1 || true)
  TORCH_SPEC=${local_wheel:-torch}
fi
TORCH_INDEX=${TORCH_INDEX:-https://download.pytorch.org/whl/cpu}

if [ ! -x "$VENV/bin/pyinstaller" ] && [ ! -x "$VENV/Scripts/pyinstaller.exe" ]; then
  echo "== making the build venv $VENV"
  "$PYTHON" -m venv "$VENV"
  BIN="$VENV/bin"; [ -d "$BIN" ] || BIN="$VENV/Scripts"
  "$BIN/python" -m pip install -q --upgrade pip
  if [ -f "$TORCH_SPEC" ]; then
    "$BIN/python" -m pip install -q "$TORCH_SPEC"
  else
    "$BIN/python" -m pip install -q "$TORCH_SPEC" --extra-index-url "$TORCH_INDEX"
  fi
  "$BIN/python" -m pip install -q "PySide6-Essentials>=6.5,<6.12" "pyqtgraph>=0.13.3" numpy platformdirs \
    tomli-w pillow pyinstaller
fi
BIN="$VENV/bin"; [ -d "$BIN" ] || BIN="$VENV/Scripts"

echo "== icons"
QT_QPA_PLATFORM=offscreen "$BIN/python" packaging/render_icons.py >/dev/null

echo "== pyinstaller"
PYTHONPATH="$ROOT" "$BIN/pyinstaller" --noconfirm --clean --log-level WARN \
  --distpath "$ROOT/dist" --workpath "$ROOT/build/pyinstaller" packaging/studio.spec

echo "== built: $(du -sh "$ROOT/dist/studio" | cut -f1) in dist/studio"
