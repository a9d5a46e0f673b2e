#!/usr/bin/env bash
# Prometheus and promtool for the monitoring tests (test/integration/prometheus*.test.ts), from Debian's package
# `prometheus` (2.42 on bookworm): the tests start their own Prometheus process (a temporary data folder, a free
# port, a scrape config of their own) and run `promtool check rules` / `promtool test rules`; nothing here starts or
# configures a Prometheus service.
# Installed once (about 45 s on a fresh machine); a later run finds both binaries and returns at once.
# Usage: hack/setup-prometheus.sh   -> prints the folder holding `prometheus` and `promtool` on its last line
set -euo pipefail
say() { echo "setup-prometheus: $*" >&2; }
if command -v prometheus >/dev/null && command -v promtool >/dev/null; then
  dirname "$(command -v promtool)"
  exit 0
fi
SUDO=""; [[ $(id -u) == 0 ]] || SUDO=sudo
# The package enables a prometheus service; keep its install from starting one (a daemon on :9090 that no test uses)
# where the machine has no policy-rc.d of its own (Debian's container images do).
policy=/usr/sbin/policy-rc.d
added_policy=0
if [[ ! -e $policy ]]; then
  printf '#!/bin/sh\nexit 101\n' | $SUDO tee "$policy" >/dev/null
  $SUDO chmod +x "$policy"
  added_policy=1
fi
trap 'if [[ $added_policy == 1 ]]; then $SUDO rm -f "$policy"; fi' EXIT
say "installing prometheus (Prometheus and promtool) from Debian"
$SUDO apt-get update -qq >/dev/null
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends prometheus >/dev/null
command -v prometheus >/dev/null && command -v promtool >/dev/null || { say "prometheus installed but not on PATH"; exit 1; }
say "$(prometheus --version 2>&1 | head -n 1)"
dirname "$(command -v promtool)"
