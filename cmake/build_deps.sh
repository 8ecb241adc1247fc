#!/usr/bin/env bash
# What the build itself needs beyond cmake and a C compiler, installed when missing — sourced by the
# README's two commands (cli/sweep.sh, tests/run.sh) so they work on a fresh Debian/Ubuntu machine:
#   libsleef-dev   SLEEF, the series' exp (docs/spec.md §1; cmake/sleef.cmake)
#   pkg-config     finds SLEEF, and the installed-prefix consumer test uses it
# Needs root or passwordless sudo to install; elsewhere (macOS: brew install sleef pkg-config) it only
# says what is missing, and CMake's own message follows.
hs_build_deps() {
  command -v dpkg >/dev/null || return 0
  local missing=() pkg sudo_=""
  for pkg in libsleef-dev pkg-config; do
    dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
  done
  [[ ${#missing[@]} -gt 0 ]] || return 0
  [[ $(id -u) -eq 0 ]] || sudo_="sudo"
  echo "hmasweep: installing ${missing[*]} (apt-get)" >&2
  { $sudo_ apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo_ apt-get install -y -qq "${missing[@]}" >/dev/null; } ||
    echo "hmasweep: apt-get failed; install ${missing[*]} yourself" >&2
}
hs_build_deps
