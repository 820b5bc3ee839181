# Sourced by the orchestrator benchmarks. time_command WHAT COMMAND...: runs COMMAND with
# its output in $work/out and $work/err, and sets `seconds` (wall) and `kilobytes` (peak
# resident set) from /usr/bin/time; a failing command ends the benchmark, WHAT naming it,
# with the tail of its errors.
time_command() {
  local what=$1
  shift
  /usr/bin/time -f "%e %M" -o "$work/time" "$@" >"$work/out" 2>"$work/err" || {
    echo "$what failed:" >&2
    tail -n 20 "$work/err" >&2
    exit 1
  }
  read -r seconds kilobytes <"$work/time"
}
