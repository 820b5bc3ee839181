#!/usr/bin/env python3
"""bundle.json: what the GPU kit's prebuilt bundle was built against, read from the CUDA
build's CMakeCache.txt and the wheel it names (never by importing torch, so any python3
writes it): torch version and git hash, the CUDA version torch was built for, NCCL (the
header the build compiled against), cuDNN and the CUDA runtime (the nvidia-* wheels beside
it), the wheel's Python tag, the toolkit's nvcc, the build type, this repository's commit,
the newest glibc and libstdc++ symbol versions the binaries need, and every file's size.
benchmarks/gpu/preflight.py compares it with the GPU machine.

  bundle_manifest.py folders --build-dir DIR   the wheel's library folders the build used
  bundle_manifest.py write --build-dir DIR --bundle DIR --binaries NAME...

Standard library only.
"""
import argparse
import datetime
import glob
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import wheel_library_path  # noqa: E402

MANIFEST = "bundle.json"


def cmake_cache(build_dir):
    values = {}
    with open(os.path.join(build_dir, "CMakeCache.txt")) as cache:
        for line in cache:
            match = re.match(r"^([A-Za-z0-9_]+):[A-Z]+=(.*)$", line.rstrip("\n"))
            if match:
                values[match.group(1)] = match.group(2)
    return values


def wheel_roots(cache):
    """(torch package folder, site-packages folder holding the nvidia-* wheels)."""
    torch_root = os.path.normpath(os.path.join(cache["Torch_DIR"], "..", "..", ".."))
    nvidia_site = os.path.normpath(os.path.join(cache["NCCL_INCLUDE_DIR"], "..", "..", ".."))
    return torch_root, nvidia_site


def library_folders(cache):
    torch_root, nvidia_site = wheel_roots(cache)
    return wheel_library_path.wheel_folders(torch_root, [os.path.join(nvidia_site, "nvidia")])


def python_assignments(path):
    """name -> string value of the `name = '...'` lines of torch/version.py."""
    with open(path) as source:
        return dict(re.findall(r"^(\w+)(?:: [^=]+)? = '([^']*)'", source.read(), re.M))


def dist_info_version(site, distribution):
    found = sorted(glob.glob(os.path.join(site, distribution + "-*.dist-info")))
    return os.path.basename(found[-1])[len(distribution) + 1:-len(".dist-info")] if found else ""


def wheel_tag(torch_root):
    for wheel in glob.glob(os.path.join(os.path.dirname(torch_root), "torch-*.dist-info", "WHEEL")):
        with open(wheel) as metadata:
            for line in metadata:
                if line.startswith("Tag:"):
                    return line.split(":", 1)[1].strip()
    return ""


def nccl_header_version(include_dir):
    with open(os.path.join(include_dir, "nccl.h")) as header:
        text = header.read()
    parts = [re.search(rf"#define NCCL_{part}\s+(\d+)", text)
             for part in ("MAJOR", "MINOR", "PATCH")]
    return ".".join(p.group(1) for p in parts if p)


def nvcc_release(nvcc, timeout_s=10):
    """x.y.z of the nvcc at this path; empty where it does not run."""
    try:
        output = subprocess.run([nvcc, "--version"], capture_output=True, text=True,
                                timeout=timeout_s).stdout
    except (OSError, subprocess.TimeoutExpired):
        return ""
    match = re.search(r"V(\d+\.\d+\.\d+)", output)
    return match.group(1) if match else ""


def nvcc_version(cache):
    return nvcc_release(cache.get("CMAKE_CUDA_COMPILER") or os.path.join(
        cache.get("CUDAToolkit_ROOT", ""), "bin", "nvcc"))


def newest_symbol_version(paths, prefix):
    """The newest PREFIX_x.y[.z] symbol version any of the ELF files needs."""
    newest = ()
    for path in paths:
        output = subprocess.run(["readelf", "-V", "-W", path], capture_output=True,
                                text=True).stdout
        for version in re.findall(rf"Name: {prefix}_([0-9.]+)", output):
            newest = max(newest, tuple(int(n) for n in version.split(".")))
    return ".".join(map(str, newest))


def git(*arguments):
    return subprocess.run(["git", *arguments], capture_output=True, text=True).stdout.strip()


def manifest(build_dir, bundle, binaries):
    cache = cmake_cache(build_dir)
    torch_root, nvidia_site = wheel_roots(cache)
    version = python_assignments(os.path.join(torch_root, "version.py"))
    tag = wheel_tag(torch_root)
    python = re.match(r"cp(\d)(\d+)", tag)
    files = sorted(name for name in os.listdir(bundle) if name != MANIFEST)
    paths = [os.path.join(bundle, name) for name in files]
    sizes = {name: os.path.getsize(path) for name, path in zip(files, paths)}
    return {
        "torch_version": version.get("__version__", ""),
        "torch_git_version": version.get("git_version", ""),
        "torch_cuda_version": version.get("cuda", ""),
        "torch_wheel_tag": tag,
        "python_version": f"{python.group(1)}.{python.group(2)}" if python else "",
        "nccl_version": nccl_header_version(cache["NCCL_INCLUDE_DIR"]),
        "cudnn_version": dist_info_version(nvidia_site, "nvidia_cudnn_cu13"),
        "cuda_runtime_version": dist_info_version(nvidia_site, "nvidia_cuda_runtime"),
        "cuda_toolkit_version": nvcc_version(cache),
        "build_type": cache.get("CMAKE_BUILD_TYPE", "") or "None",
        "git_commit": git("rev-parse", "HEAD"),
        "git_dirty": bool(git("status", "--porcelain", "--untracked-files=no")),
        "glibc_required": newest_symbol_version(paths, "GLIBC"),
        "glibcxx_required": newest_symbol_version(paths, "GLIBCXX"),
        "binaries": {name: sizes[name] for name in binaries},
        "libraries": {name: size for name, size in sizes.items() if name not in binaries},
        "total_bytes": sum(sizes.values()),
        "created_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }


def load(bundle):
    with open(os.path.join(bundle, MANIFEST)) as file:
        return json.load(file)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    folders_parser = commands.add_parser("folders")
    folders_parser.add_argument("--build-dir", required=True)
    write_parser = commands.add_parser("write")
    write_parser.add_argument("--build-dir", required=True)
    write_parser.add_argument("--bundle", required=True)
    write_parser.add_argument("--binaries", nargs="+", required=True)
    args = parser.parse_args()
    if args.command == "folders":
        print(" ".join(library_folders(cmake_cache(args.build_dir))))
        return
    content = manifest(args.build_dir, args.bundle, args.binaries)
    with open(os.path.join(args.bundle, MANIFEST), "w") as file:
        json.dump(content, file, indent=2)
        file.write("\n")
    print(json.dumps(content, indent=2))


if __name__ == "__main__":
    main()
