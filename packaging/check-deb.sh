#!/usr/bin/env bash
# Installs the .deb that `mvn package` built (target/trunkgate_*_all.deb) on this Debian machine (as root) and
# checks what got installed: the template in /etc/trunkgate validates with the installed command, run as the
# trunkgate user, and has no live peer, carrier or route; its README.md names every file there and only paths
# that exist; an empty TRUNKGATE_ADMIN_TOKEN passes; a relative records.file lands in the service's working
# directory and one it cannot write is warned about; /usr/share/doc/trunkgate holds the README, the
# configuration reference, the changelogs, the copyright file and every doc the README and gateway.conf link to;
# the man page, the logrotate file (valid for logrotate), the Grafana dashboard and the alert rules are there; the
# Maintainer is no placeholder; lintian finds nothing it does not list with a reason (packaging/deb/lintian-
# overrides), where lintian is installed; the jar carries only Linux redis-server binaries; systemd accepts the
# unit. Purges the package again on the way out.
set -euo pipefail
cd "$(dirname "$0")/.."

shopt -s nullglob
debs=(target/trunkgate_*_all.deb)
if [ ${#debs[@]} -ne 1 ]; then
  echo "check-deb: expected one target/trunkgate_*_all.deb, found ${#debs[@]}; run mvn package first" >&2
  exit 1
fi

scratch=$(mktemp -d)
trap 'dpkg --purge trunkgate >/dev/null; rm -rf "$scratch"' EXIT
fail() { echo "check-deb: $*" >&2; exit 1; }
if ! dpkg -i "${debs[0]}"; then
  echo "check-deb: installing missing dependencies"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -f -y -qq
fi
dpkg-query -W -f='${Status}\n' trunkgate | grep -qx 'install ok installed'
id trunkgate

out=$(runuser -u trunkgate -- trunkgate check-config --config /etc/trunkgate/gateway.conf)
echo "$out"
grep -q '(0 peers, 0 groups, 0 carriers, 0 routes)' <<<"$out" || fail "/etc/trunkgate is not an empty template"
live=$(find /etc/trunkgate/peers /etc/trunkgate/groups /etc/trunkgate/carriers -name '*.conf')
[ -z "$live" ] || fail "live configuration installed: $live"

# /etc/trunkgate/README.md names every file installed there, and every absolute path it names exists.
readme=/etc/trunkgate/README.md
while IFS= read -r file; do
  grep -Fq "\`$(basename "$file")\`" "$readme" || fail "$readme does not name $file"
done < <(find /etc/trunkgate -type f)
for path in $(grep -o '/\(etc\|usr\|lib\|var\)/[A-Za-z0-9_./-]*[A-Za-z0-9_]' "$readme" | sort -u); do
  [ -e "$path" ] || fail "$readme names $path, which is not installed"
done

for doc in README.md configuration.md CHANGELOG.md copyright changelog.gz; do
  [ -s "/usr/share/doc/trunkgate/$doc" ] || fail "no /usr/share/doc/trunkgate/$doc"
done
# docs/... as the README and gateway.conf name them, relative to /usr/share/doc/trunkgate
for doc in $(grep -oh 'docs/[A-Za-z0-9_.-]*\.\(md\|yaml\|png\)' /usr/share/doc/trunkgate/README.md \
             /etc/trunkgate/gateway.conf | sort -u); do
  [ -s "/usr/share/doc/trunkgate/$doc" ] || fail "the README or gateway.conf links $doc, not in /usr/share/doc/trunkgate"
done
for file in /usr/share/man/man1/trunkgate.1.gz /usr/share/trunkgate/ops/grafana/trunkgate.json \
            /usr/share/trunkgate/ops/prometheus/alerts.yml /usr/share/trunkgate/ops/prometheus/prometheus.yml; do
  [ -s "$file" ] || fail "no $file"
done
grep -q '^/var/lib/trunkgate/calls.jsonl {' /etc/logrotate.d/trunkgate || fail "/etc/logrotate.d/trunkgate rotates no calls.jsonl"
if command -v logrotate >/dev/null 2>&1; then
  logrotate --debug --state "$scratch/logrotate.state" /etc/logrotate.d/trunkgate >"$scratch/logrotate.out" 2>&1 \
    || { cat "$scratch/logrotate.out" >&2; fail "logrotate refuses /etc/logrotate.d/trunkgate"; }
fi
maintainer=$(dpkg-query -W -f='${Maintainer}' trunkgate)
case $maintainer in *@localhost*|*'<>'*|'') fail "Maintainer is a placeholder: $maintainer" ;; esac
if command -v lintian >/dev/null 2>&1; then
  lintian --fail-on error,warning --pedantic "${debs[0]}" 2>&1 | grep -v 'running with root privileges' \
    | tee "$scratch/lintian.out" >&2 || true
  ! grep -q '^[EWIP]: ' "$scratch/lintian.out" || fail "lintian: $(grep -c '^[EWIP]: ' "$scratch/lintian.out") tag(s) not overridden"
else
  echo "check-deb: lintian not installed; the package not linted"
fi

# The jar's bundled redis-server binaries: Linux ones only, amd64 among them.
python3 - /usr/share/trunkgate/trunkgate.jar <<'EOF2' || fail "the jar's redis-server binaries are wrong"
import sys, zipfile
names = [n for n in zipfile.ZipFile(sys.argv[1]).namelist() if n.startswith("redis-server")]
print("check-deb: bundled", " ".join(names))
sys.exit(0 if names and all("-linux-" in n for n in names) and any("linux-amd64" in n for n in names) else 1)
EOF2

# An empty admin token (TRUNKGATE_ADMIN_TOKEN= in /etc/default/trunkgate) is no token, not an error.
runuser -u trunkgate -- env TRUNKGATE_ADMIN_TOKEN= trunkgate check-config --config /etc/trunkgate/gateway.conf \
  >/dev/null || fail "an empty TRUNKGATE_ADMIN_TOKEN fails check-config"

# A relative records.file resolves against the working directory the unit gives (/var/lib/trunkgate), which the
# service may write; one in /etc/trunkgate it may not, and check-config says so.
cp -r /etc/trunkgate "$scratch/etc"
chmod -R a+rX "$scratch"
echo 'records.file = calls.jsonl' >>"$scratch/etc/gateway.conf"
warnings=$(cd /var/lib/trunkgate && runuser -u trunkgate -- trunkgate check-config --config "$scratch/etc/gateway.conf" 2>&1 >/dev/null)
[ -z "$warnings" ] || fail "records.file in /var/lib/trunkgate: $warnings"
echo 'records.file = /etc/trunkgate/calls.jsonl' >>"$scratch/etc/gateway.conf"
warnings=$(cd /var/lib/trunkgate && runuser -u trunkgate -- trunkgate check-config --config "$scratch/etc/gateway.conf" 2>&1 >/dev/null)
grep -q 'warning: records.file: /etc/trunkgate/calls.jsonl: directory /etc/trunkgate is not writable by trunkgate' \
  <<<"$warnings" || fail "no warning for a records.file in /etc/trunkgate: $warnings"
echo "check-deb: /etc/trunkgate is an empty template its README describes; docs, man page, logrotate, ops, jar, token and state-dir OK"

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
