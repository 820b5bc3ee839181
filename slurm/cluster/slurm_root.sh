# A newer SLURM for the local test cluster: Debian's own packages of a newer suite
# (trixie: 24.11, sid: 26.05), unpacked with mmdebstrap into a root of their own under
# .deps/ and made to run on this host without a chroot, so that the jobs they start run in
# the host's userland (the project's binaries and libraries, Debian 12's Python):
# - every SLURM program and library gets the root's dynamic loader as its interpreter and
#   the root's library folders as its RPATH (patchelf), so it loads the root's glibc and
#   libslurm while the programs it starts (job scripts, srun's tasks) load the host's;
# - slurm.conf names the root's PluginDir, slurmd the root's slurmstepd (-d);
# - the clients (sbatch, srun, sacct, ...) are linked into scalestudy-bin/, which the
#   cluster's env.sh puts first on PATH; munged and MariaDB are the host's.
# Sourced by common.sh; `prepare_slurm_root` runs from start.sh (as root).
# shellcheck shell=bash

# The packages of the root, and the mirror they come from (any Debian mirror).
SLURM_ROOT_PACKAGES=slurmctld,slurmd,slurmdbd,slurmrestd,slurm-client,slurm-wlm-jwt-plugin
SLURM_ROOT_MIRROR=${SCALESTUDY_DEBIAN_MIRROR:-http://deb.debian.org/debian}
SLURM_CLIENTS=(sacct sacctmgr salloc sattach sbatch sbcast scancel scontrol sdiag sinfo sprio
  squeue sreport srun sshare sstat)
SLURM_DAEMONS=(slurmctld slurmd slurmstepd slurmdbd slurmrestd)

# is_elf FILE: true for an ELF object.
is_elf() { [ "$(head -c 4 "$1" 2>/dev/null | od -An -c | tr -d ' ')" = '177ELF' ]; }

# in_root ROOT PATH: PATH (a file of ROOT) with its symlinks followed inside ROOT: Debian's
# alternatives link slurmd to /etc/alternatives/slurmd, which outside ROOT is the host's.
in_root() {
  local root=$1 path=$2 target
  while [ -L "$path" ]; do
    target=$(readlink "$path")
    case $target in
      /*) path=$root$target ;;
      *) path=$(dirname "$path")/$target ;;
    esac
  done
  echo "$path"
}

# patch_slurm_elf ROOT FILE: FILE loads ROOT's libraries (and, when it is a program, through
# ROOT's loader). A forced RPATH, unlike RUNPATH, also applies to the libraries FILE loads.
patch_slurm_elf() {
  local root=$1 file=$2 libs
  libs="$root/usr/lib/x86_64-linux-gnu/slurm-wlm:$root/usr/lib/x86_64-linux-gnu:$root/usr/lib"
  patchelf --force-rpath --set-rpath "$libs" "$file"
  if patchelf --print-interpreter "$file" >/dev/null 2>&1; then
    patchelf --set-interpreter "$root/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2" "$file"
  fi
}

# prepare_slurm_root SUITE ROOT: ROOT holds SUITE's SLURM ready to run (kept between runs;
# ROOT/.scalestudy-ready names the version). Two starts at once wait for each other.
prepare_slurm_root() {
  local suite=$1 root=$2 file program started=$SECONDS
  mkdir -p "$(dirname "$root")"
  exec 8>"$root.lock"
  flock -w 900 8 || die "another start held $root.lock for 900 s"
  if [ -f "$root/.scalestudy-ready" ]; then
    exec 8>&-
    return 0
  fi
  command -v mmdebstrap >/dev/null || die "mmdebstrap not found; run scripts/install-deps.sh"
  command -v patchelf >/dev/null || die "patchelf not found; run scripts/install-deps.sh"
  log "unpacking Debian $suite's SLURM into $root (once; cached)"
  rm -rf "$root.new"
  # Check-Valid-Until: a mirror's snapshot of sid may be older than its Release file allows.
  mmdebstrap --variant=apt --aptopt='Acquire::Check-Valid-Until "false"' \
    --include="$SLURM_ROOT_PACKAGES" "$suite" "$root.new" "$SLURM_ROOT_MIRROR" \
    >"$root.log" 2>&1 || {
    tail -n 20 "$root.log" >&2
    die "mmdebstrap of $suite failed (log: $root.log)"
  }
  for file in "$root.new"/usr/sbin/slurm* "${SLURM_CLIENTS[@]/#/$root.new/usr/bin/}" \
    "$root.new"/usr/lib/x86_64-linux-gnu/slurm-wlm/*.so*; do
    if [ -f "$file" ] && [ ! -L "$file" ] && is_elf "$file"; then patch_slurm_elf "$root" "$file"; fi
  done
  mkdir -p "$root.new/scalestudy-bin"
  for program in "${SLURM_CLIENTS[@]/#/usr/bin/}" "${SLURM_DAEMONS[@]/#/usr/sbin/}"; do
    file=$(in_root "$root.new" "$root.new/$program")
    ln -sfn "$root${file#"$root.new"}" "$root.new/scalestudy-bin/$(basename "$program")"
  done
  rm -rf "$root"
  mv "$root.new" "$root"
  "$root/scalestudy-bin/slurmd" -V | awk '{print $2}' >"$root/.scalestudy-ready" ||
    die "the unpacked slurmd does not run on this host"
  log "SLURM $(cat "$root/.scalestudy-ready") ready in $root after $((SECONDS - started)) s"
  exec 8>&-
}
