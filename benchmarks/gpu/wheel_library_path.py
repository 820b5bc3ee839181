#!/usr/bin/env python3
"""Prints the library folders of the PyTorch wheel this python3 imports — torch/lib and
every nvidia/*/lib of the nvidia-* wheels (cuDNN, NCCL, the CUDA runtime, ...) — joined by
':', for LD_LIBRARY_PATH: what the GPU kit's prebuilt binaries load LibTorch, CUDA and NCCL
from. Finds the packages without importing them (no torch import, no CUDA start-up); exits
1 with the reason when torch is not installed.

  LD_LIBRARY_PATH=$(python3 benchmarks/gpu/wheel_library_path.py) bundle/scalestudy-train ...
"""
import glob
import importlib.util
import os
import sys


def package_folders(name):
    spec = importlib.util.find_spec(name)
    return list(spec.submodule_search_locations or []) if spec else []


def wheel_folders(torch_root, nvidia_roots):
    """torch/lib of the torch package at torch_root and every */lib of the nvidia
    namespace package folders nvidia_roots."""
    folders = [os.path.join(torch_root, "lib")]
    for nvidia in nvidia_roots:
        folders += sorted(glob.glob(os.path.join(nvidia, "*", "lib")))
    return folders


def library_folders():
    torch_folders = package_folders("torch")
    if not torch_folders:
        raise SystemExit(f"wheel_library_path: {sys.executable} has no torch package")
    return wheel_folders(torch_folders[0], package_folders("nvidia"))


if __name__ == "__main__":
    print(":".join(library_folders()))
