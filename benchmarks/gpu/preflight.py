#!/usr/bin/env python3
"""The GPU kit's first step (at most 30 s): what this machine has — OS, glibc, driver, GPU,
nvcc, and the torch wheel of this python3 (version, git hash, CUDA, NCCL, cuDNN) — against
what the prebuilt bundle was built for (its bundle.json). Writes a markdown table and stops
(exit 3) with the reasons when the bundle cannot run here: another torch version or git
hash, another CUDA major version or NCCL major.minor, an older glibc than the binaries
need, a library the bundle's binaries cannot resolve here, or no visible GPU. A different
CPython, cuDNN or nvcc is noted, never fatal (the wheel's libraries are the same build).

  preflight.py [--bundle DIR] [--out FILE] [--allow-no-gpu] [--facts FILE]
    --bundle        the prebuilt bundle (without it: the machine's facts only, as before a
                    build on the device)
    --allow-no-gpu  the CPU rehearsal: a missing GPU is noted, not fatal
    --facts FILE    take this machine's facts from a JSON file instead of probing (tests)
"""
import argparse
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import sysconfig

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bundle_libraries  # noqa: E402
import bundle_manifest  # noqa: E402
import wheel_library_path  # noqa: E402

MISMATCH_EXIT = 3
TORCH_PROBE = r"""
import json, torch
facts = {"torch_version": torch.__version__, "torch_git_version": torch.version.git_version,
         "torch_cuda_version": torch.version.cuda or "",
         "cuda_available": torch.cuda.is_available()}
try:
    facts["nccl_version"] = ".".join(map(str, torch.cuda.nccl.version()))
except Exception as error:
    facts["nccl_version"] = ""
cudnn = torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None
facts["cudnn_version"] = f"{cudnn // 10000}.{cudnn // 100 % 100}.{cudnn % 100}" if cudnn else ""
if facts["cuda_available"]:
    facts["device_count"] = torch.cuda.device_count()
    facts["gpu"] = torch.cuda.get_device_name(0)
print(json.dumps(facts))
"""


def command_output(command, timeout_s):
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=timeout_s)
        return result.stdout.strip() if result.returncode == 0 else ""
    except (OSError, subprocess.TimeoutExpired):
        return ""


def os_name():
    try:
        with open("/etc/os-release") as release:
            match = re.search(r'^PRETTY_NAME="?([^"\n]*)', release.read(), re.M)
            return match.group(1) if match else platform.platform()
    except OSError:
        return platform.platform()


def nvcc_version():
    candidates = [shutil.which("nvcc"),
                  os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "nvcc")]
    for nvcc in filter(None, candidates):
        release = bundle_manifest.nvcc_release(nvcc)
        if release:
            return release
    return ""


def compile_toolchain():
    """(C compiler, whether Python.h is there): what torch.compile's Triton needs to build the
    launcher of its GPU kernels."""
    compiler = next(filter(None, (os.environ.get("CC"), shutil.which("cc"), shutil.which("gcc"),
                                  shutil.which("clang"))), "")
    header = os.path.join(sysconfig.get_paths().get("include", ""), "Python.h")
    return compiler, os.path.isfile(header)


def probe(bundle):
    """This machine's facts; a key is empty where the machine does not say."""
    smi = command_output(["nvidia-smi", "--query-gpu=name,driver_version,memory.total",
                          "--format=csv,noheader"], 10).splitlines()
    facts = {"os": os_name(), "kernel": platform.release(), "glibc": platform.libc_ver()[1],
             "python": platform.python_version(), "nvcc": nvcc_version(),
             "driver": smi[0].split(", ")[1] if smi else "",
             "gpu": smi[0].split(", ")[0] if smi else "", "device_count": len(smi)}
    facts["c_compiler"], facts["python_h"] = compile_toolchain()
    torch_facts = command_output([sys.executable, "-c", TORCH_PROBE], 25)
    facts.update(json.loads(torch_facts) if torch_facts else {"torch_version": ""})
    if bundle and shutil.which("ldd"):
        try:
            folders = wheel_library_path.library_folders()
        except SystemExit as error:
            facts["library_problems"] = [str(error)]
        else:
            facts["library_problems"] = bundle_libraries.problems(bundle, folders)
    return facts


def version_tuple(text, parts):
    numbers = [int(n) for n in re.findall(r"\d+", text or "")[:parts]]
    return tuple(numbers) if len(numbers) == parts else None


def compare(manifest, facts, allow_no_gpu):
    """(table rows, fatal reasons, notes) of this machine against the bundle."""
    rows, fatal, notes = [], [], []

    def row(what, here, bundle="", verdict=""):
        rows.append((what, str(here) if here not in (None, "") else "—", bundle, verdict))

    def must(what, here, bundle, ok, reason):
        row(what, here, bundle, "ok" if ok else "MISMATCH")
        if not ok:
            fatal.append(reason)

    gpu_ok = bool(facts.get("gpu")) and facts.get("cuda_available", False)
    row("OS", f"{facts.get('os', '')} (kernel {facts.get('kernel', '')})")
    row("driver", facts.get("driver"))
    if allow_no_gpu:
        row("GPU", facts.get("gpu") or "none (CPU rehearsal)")
    else:
        gpu = (f"{facts['gpu']} ({facts.get('device_count', 0)} visible)"
               if facts.get("gpu") else "none")
        must("GPU", gpu, "", gpu_ok,
             "no GPU visible to torch (torch.cuda.is_available() is false or nvidia-smi "
             "lists none)")
    row("nvcc", facts.get("nvcc"), manifest.get("cuda_toolkit_version", ""))
    required = manifest.get("glibc_required", "")
    if required:
        here = version_tuple(facts.get("glibc"), 2)
        must("glibc", facts.get("glibc"), f"≥ {required}",
             here is not None and here >= version_tuple(required, 2),
             f"glibc {facts.get('glibc') or '(unknown)'} is older than the {required} the "
             "bundle's binaries need: run validate.sh --build-on-device")
    else:
        row("glibc", facts.get("glibc"))
    row("python3", facts.get("python"), f"{manifest.get('python_version', '')} (wheel's)")
    if "c_compiler" in facts:
        toolchain_ok = bool(facts["c_compiler"]) and facts.get("python_h", False)
        row("torch.compile toolchain",
            f"{facts['c_compiler'] or 'no C compiler'}; Python.h "
            f"{'found' if facts.get('python_h') else 'missing'}", "",
            "" if toolchain_ok else "the compiled twins will fail (Triton builds a C launcher)")
    if not manifest:
        row("torch", facts.get("torch_version"))
        row("NCCL", facts.get("nccl_version"))
        return rows, fatal, notes
    if manifest.get("python_version") and not (facts.get("python") or "").startswith(
            manifest["python_version"] + "."):
        notes.append(f"python3 is {facts.get('python')}, the bundle was built against the "
                     f"CPython {manifest['python_version']} wheel: the same LibTorch build "
                     "(equal git hash), so it does not matter")
    must("torch", facts.get("torch_version"), manifest["torch_version"],
         facts.get("torch_version") == manifest["torch_version"],
         f"python3 ({sys.executable}) has torch {facts.get('torch_version') or '(none)'}, the "
         f"bundle was built against {manifest['torch_version']}: use the python that has it "
         "(--python), or rebuild the bundle (scripts/gpu-bundle.sh) or on the device "
         "(--build-on-device)")
    must("torch git", facts.get("torch_git_version"), manifest["torch_git_version"],
         facts.get("torch_git_version") == manifest["torch_git_version"],
         "torch's git hash differs from the bundle's: another build of the same version")
    cuda_here = version_tuple(facts.get("torch_cuda_version"), 1)
    must("CUDA (torch)", facts.get("torch_cuda_version"), manifest["torch_cuda_version"],
         cuda_here is not None and cuda_here == version_tuple(manifest["torch_cuda_version"], 1),
         f"torch's CUDA {facts.get('torch_cuda_version') or '(none: a CPU-only torch)'} is "
         f"not the bundle's CUDA {manifest['torch_cuda_version']} major version")
    nccl_here = version_tuple(facts.get("nccl_version"), 2)
    must("NCCL", facts.get("nccl_version"), manifest["nccl_version"],
         nccl_here is not None and nccl_here == version_tuple(manifest["nccl_version"], 2),
         f"torch's NCCL {facts.get('nccl_version') or '(none)'} is not the bundle's "
         f"{manifest['nccl_version']} (major.minor)")
    row("cuDNN", facts.get("cudnn_version"), manifest.get("cudnn_version", ""))
    problems = facts.get("library_problems")
    if problems is None:
        row("libraries", "not checked (no ldd)")
    else:
        must("libraries", "all resolve" if not problems else f"{len(problems)} problem(s)",
             f"{len(manifest.get('libraries', {}))} bundled", not problems,
             "the bundle's binaries cannot load here: " + "; ".join(problems[:5]))
    return rows, fatal, notes


def report(rows, fatal, notes, manifest):
    lines = ["| | this machine | bundle | |", "|---|---|---|---|"]
    lines += [f"| {what} | {here} | {bundle} | {verdict} |" for what, here, bundle, verdict in rows]
    if manifest:
        dirty = " (dirty)" if manifest.get("git_dirty") else ""
        lines += ["", f"Bundle: {manifest.get('build_type')} build of commit "
                      f"{manifest.get('git_commit', '')[:12]}{dirty}, "
                      f"{manifest.get('total_bytes', 0) / 2**20:.1f} MiB, "
                      f"made {manifest.get('created_utc')}."]
    lines += [""] + [f"Note: {note}" for note in notes]
    lines += [f"STOP: {reason}" for reason in fatal]
    lines.append("preflight: " + ("STOP, the bundle cannot run here" if fatal else "ok"))
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bundle", default="")
    parser.add_argument("--out", default="")
    parser.add_argument("--allow-no-gpu", action="store_true")
    parser.add_argument("--facts", default="")
    args = parser.parse_args()
    manifest = bundle_manifest.load(args.bundle) if args.bundle else {}
    if args.facts:
        with open(args.facts) as file:
            facts = json.load(file)
    else:
        facts = probe(args.bundle)
    rows, fatal, notes = compare(manifest, facts, args.allow_no_gpu)
    text = report(rows, fatal, notes, manifest)
    if args.out:
        with open(args.out, "w") as file:
            file.write(text)
    print(text, end="")
    if fatal:
        sys.exit(MISMATCH_EXIT)


if __name__ == "__main__":
    main()
