#!/usr/bin/env bash
# slurm/cluster/common.sh, which every cluster script sources first, refuses a setting it
# would put into slurm.conf or the ports' arithmetic as it is: a release it has no packages
# for, a port base or first job id that is not a whole number above 0. Starts nothing.
#   cluster_settings_test.sh SOURCE_DIR
set -uo pipefail
common=$1/slurm/cluster/common.sh
fail() {
  echo "cluster_settings_test: FAILED: $*" >&2
  exit 1
}

# sourced NAME=VALUE...: what sourcing common.sh with those settings prints, then its
# FIRST_JOB_ID and PORT_BASE; the exit status of the sourcing.
sourced() {
  # shellcheck disable=SC2016  # they expand in the inner bash
  env "$@" bash -c 'source "$1" && echo "first=$FIRST_JOB_ID base=$PORT_BASE"' _ "$common" 2>&1
}

expect_refusal() {
  local words=$1 output
  shift
  output=$(sourced "$@") && fail "$*: accepted: $output"
  [[ "$output" == *"$words"* ]] || fail "$*: no refusal naming '$words': $output"
  echo "refused as expected: $output"
}

expect_refusal "SCALESTUDY_SLURM_FIRST_JOB_ID=abc: not a whole number above 0" \
  SCALESTUDY_SLURM_FIRST_JOB_ID=abc
expect_refusal "SCALESTUDY_SLURM_FIRST_JOB_ID=0: not a whole number above 0" \
  SCALESTUDY_SLURM_FIRST_JOB_ID=0
expect_refusal "SCALESTUDY_SLURM_FIRST_JOB_ID=-5: not a whole number above 0" \
  SCALESTUDY_SLURM_FIRST_JOB_ID=-5
expect_refusal "SCALESTUDY_SLURM_PORT_BASE=16800x: not a whole number above 0" \
  SCALESTUDY_SLURM_PORT_BASE=16800x
expect_refusal "SCALESTUDY_SLURM_VERSION=23.02: not one of 22.05, 24.11, 26.05" \
  SCALESTUDY_SLURM_VERSION=23.02

output=$(sourced SCALESTUDY_SLURM_FIRST_JOB_ID=9000 SCALESTUDY_SLURM_PORT_BASE=16800) ||
  fail "whole numbers refused: $output"
[ "$output" = "first=9000 base=16800" ] || fail "whole numbers read as: $output"
output=$(sourced SCALESTUDY_SLURM_FIRST_JOB_ID= SCALESTUDY_SLURM_VERSION=24.11) ||
  fail "defaults refused: $output"
[ "$output" = "first=1 base=18800" ] || fail "defaults read as: $output"
echo "cluster_settings_test: passed"
