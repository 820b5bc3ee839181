#!/usr/bin/env python3
"""Where the GPU kit's bundled binaries load their shared libraries from, as `ldd` reports
under LD_LIBRARY_PATH = the PyTorch wheel's library folders and nothing else.

Every library must come from one of three places: the bundle itself, the wheel's folders
(torch/lib, nvidia/*/lib), or the base system every Linux has (glibc, libstdc++, libgcc_s).
Anything else — an unresolved name, a version a system library lacks, a library taken from
/usr/lib or a CUDA toolkit — is something the GPU machine may not have.

  bundle_libraries.py outside --wheel-folders DIR... -- ELF...
      prints the paths of the libraries ELF files load from elsewhere (what a bundle copies)
  bundle_libraries.py check --bundle DIR --wheel-folders DIR...
      every ELF file in DIR: RPATH $ORIGIN and every library from the three places; exit 1
      with one line per problem otherwise

Standard library only (runs under any python3, with or without torch).
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

# glibc's libraries, the C++ runtime and the kernel's vDSO: in every base system.
BASE_SYSTEM = {
    "linux-vdso.so.1", "ld-linux-x86-64.so.2", "libc.so.6", "libm.so.6", "libdl.so.2",
    "libpthread.so.0", "librt.so.1", "libutil.so.1", "libresolv.so.2", "libanl.so.1",
    "libstdc++.so.6", "libgcc_s.so.1",
}
LINE = re.compile(r"^\s*(\S+)(?: => (not found|\S+))?(?: \(0x[0-9a-f]+\))?\s*$")
VERSION_MISSING = re.compile(r"version `([^']+)' not found \(required by ([^)]+)\)")


def ldd(path, wheel_folders):
    """(name, resolved path or None) pairs and version errors of ldd PATH."""
    environment = dict(os.environ, LD_LIBRARY_PATH=":".join(wheel_folders))
    result = subprocess.run(["ldd", path], capture_output=True, text=True, env=environment)
    output = result.stdout + result.stderr
    entries = []
    for line in result.stdout.splitlines():
        match = LINE.match(line)
        if not match or "version `" in line:
            continue
        name, target = match.group(1), match.group(2)
        if target is None:  # the vDSO or the loader: "name (0x...)"
            entries.append((os.path.basename(name), name))
        else:
            entries.append((name, None if target == "not found" else target))
    versions = [f"{path}: {m.group(1)} not found (needed by {m.group(2)})"
                for m in VERSION_MISSING.finditer(output)]
    if result.returncode != 0 and not entries:
        versions.append(f"{path}: ldd failed: {output.strip()}")
    return entries, versions


def place(name, resolved, bundle, wheel_folders):
    """bundle | wheel | base | missing | outside."""
    if resolved is None:
        return "missing"
    # The folder the loader found it in (a file there may be a link to elsewhere).
    folder = os.path.realpath(os.path.dirname(resolved))
    if bundle and folder == os.path.realpath(bundle):
        return "bundle"
    if any(folder == os.path.realpath(wheel) for wheel in wheel_folders):
        return "wheel"
    if name in BASE_SYSTEM:
        return "base"
    return "outside"


def is_elf(path):
    with open(path, "rb") as file:
        return file.read(4) == b"\x7fELF"


def runpath(path):
    output = subprocess.run(["readelf", "-d", path], capture_output=True, text=True).stdout
    match = re.search(r"\((?:RUNPATH|RPATH)\)\s+Library r(?:un)?path: \[([^\]]*)\]", output)
    return match.group(1) if match else ""


def outside(elf_files, wheel_folders):
    """Resolved paths of the libraries the files load from neither wheel nor base system."""
    found = {}
    for path in elf_files:
        entries, _ = ldd(path, wheel_folders)
        for name, resolved in entries:
            if place(name, resolved, None, wheel_folders) == "outside":
                found[name] = resolved
    return sorted(found.values())


def problems(bundle, wheel_folders):
    """One line per way the bundle's ELF files would not load from the three places (the
    RPATH unchecked on a machine without binutils' readelf: ldd still resolves every file)."""
    found = []
    files = sorted(os.path.join(bundle, name) for name in os.listdir(bundle))
    has_readelf = shutil.which("readelf") is not None
    for path in (f for f in files if os.path.isfile(f) and is_elf(f)):
        if has_readelf and (rpath := runpath(path)) != "$ORIGIN":
            found.append(f"{path}: RPATH is '{rpath}', not '$ORIGIN'")
        entries, versions = ldd(path, wheel_folders)
        found += versions
        for name, resolved in entries:
            where = place(name, resolved, bundle, wheel_folders)
            if where == "missing":
                found.append(f"{path}: {name} not found")
            elif where == "outside":
                found.append(f"{path}: {name} resolves to {resolved}, outside the bundle, "
                             "the wheel and the base system")
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    outside_parser = commands.add_parser("outside")
    outside_parser.add_argument("--wheel-folders", nargs="+", required=True)
    outside_parser.add_argument("elf_files", nargs="+")
    check_parser = commands.add_parser("check")
    check_parser.add_argument("--bundle", required=True)
    check_parser.add_argument("--wheel-folders", nargs="+", required=True)
    args = parser.parse_args()
    if args.command == "outside":
        print("\n".join(outside(args.elf_files, args.wheel_folders)))
        return
    found = problems(args.bundle, args.wheel_folders)
    for line in found:
        print(line, file=sys.stderr)
    if found:
        sys.exit(f"bundle_libraries: {len(found)} problem(s) in {args.bundle}")
    print(f"bundle_libraries: every library of {args.bundle} resolves from the bundle, the "
          f"wheel ({len(args.wheel_folders)} folders) or the base system")


if __name__ == "__main__":
    main()
