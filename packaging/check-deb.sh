#!/usr/bin/env bash
# Installs the .deb that `mvn package` built (target/trunkgate_*_all.deb) on this Debian machine (as root) and
# checks what got installed: the sample configuration in /etc/trunkgate validates with the installed command,
# run as the trunkgate user, and systemd accepts the unit. Purges the package again on the way out.
set -euo pipefail
cd "$(dirname "$0")/.."

shopt -s nullglob
debs=(target/trunkgate_*_all.deb)
if [ ${#debs[@]} -ne 1 ]; then
  echo "check-deb: expected one target/trunkgate_*_all.deb, found ${#debs[@]}; run mvn package first" >&2
  exit 1
fi

trap 'dpkg --purge trunkgate >/dev/null' EXIT
if ! dpkg -i "${debs[0]}"; then
  echo "check-deb: installing missing dependencies"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -f -y -qq
fi
dpkg-query -W -f='${Status}\n' trunkgate | grep -qx 'install ok installed'
id trunkgate

runuser -u trunkgate -- trunkgate check-config --config /etc/trunkgate/gateway.conf

unit=/lib/systemd/system/trunkgate.service
if command -v systemd-analyze >/dev/null 2>&1; then
  # verify exits 0 even for unknown keys or bad values: any message it prints fails the check
  if ! problems=$(systemd-analyze verify "$unit" 2>&1) || [ -n "$problems" ]; then
    echo "check-deb: systemd-analyze verify $unit:" >&2
    echo "$problems" >&2
    exit 1
  fi
  echo "check-deb: $unit verified"
else
  echo "check-deb: systemd-analyze not found; $unit not verified"
fi
echo "check-deb: OK"
