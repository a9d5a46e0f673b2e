#!/usr/bin/env bash
# kubegen's second envtest profile: the CRD apiserver of Kubernetes 1.36 (apiextensions-apiserver, the CRD-serving half
# of kube-apiserver) + etcd 3.5, built from Debian sid's Go -dev source packages without touching the system's apt
# configuration or installing anything (a private apt config; the -dev packages unpacked as a GOPATH).
# It serves apiextensions.k8s.io and custom resources only (CEL validation rules, server-side apply, streaming lists);
# the 1.20 profile of hack/setup-envtest.sh serves everything else. About 6 minutes once on 2 cores (download 30 s,
# unpack 20 s, go build ~5 min); cached in $ENVTEST_1_36_DIR/bin (default ~/.cache/envtest/k8s-1.36/bin).
# Needs envtest-1.36/standalone-discovery-openapi.patch next to this script (root discovery and OpenAPI served alone).
# Usage: hack/setup-envtest-1.36.sh                  -> prints the bin folder on its last line
#        eval "$(hack/setup-envtest-1.36.sh --export)" -> sets KUBEGEN_ENVTEST_1_36_ASSETS in the calling shell
set -euo pipefail
W=${ENVTEST_1_36_DIR:-$HOME/.cache/envtest/k8s-1.36}
APTX=$W/aptx
OUT=$W/bin
done_msg() { [[ ${1:-} == --export ]] && echo "export KUBEGEN_ENVTEST_1_36_ASSETS=$OUT" || echo "$OUT"; }
if [[ -x $OUT/apiextensions-apiserver && -x $OUT/etcd ]]; then done_msg "${1:-}"; exit 0; fi
say() { echo "setup-envtest-1.36: $*" >&2; }
PATCH_DIR=$(dirname "$(readlink -f "$0")")/envtest-1.36
mkdir -p "$W"/{debs,root,etcdroot} "$OUT" "$APTX"/{etc/sources.list.d,etc/preferences.d,lists/partial,cache/archives/partial}

# 1. private apt config (sid for golang-k8s-*-dev + go 1.27, trixie for etcd-server)
if [ ! -s "$APTX/etc/sources.list" ]; then
  K=/usr/share/keyrings/debian-archive-keyring.gpg
  cat > "$APTX/etc/sources.list" <<EOF
deb [signed-by=$K] http://deb.debian.org/debian sid main
deb [signed-by=$K] http://deb.debian.org/debian trixie main
EOF
fi
O="-o Dir::Etc::sourcelist=$APTX/etc/sources.list -o Dir::Etc::sourceparts=$APTX/etc/sources.list.d \
 -o Dir::State::Lists=$APTX/lists -o Dir::Cache=$APTX/cache -o Dir::Etc::preferencesparts=$APTX/etc/preferences.d"
say "fetching Debian sid package lists (private apt config in $APTX)"
apt-get $O update -qq >/dev/null

# 2. recursive golang-*-dev closure of golang-k8s-apiextensions-apiserver-dev (~315 pkgs, ~266MB)
apt-cache $O depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
   --no-replaces --no-enhances golang-k8s-apiextensions-apiserver-dev 2>/dev/null \
 | grep -v '^ ' | grep -E '^golang-.*-dev$' | sort -u > "$W/pkgs.txt"
cd "$W/debs"
say "downloading $(wc -l < "$W/pkgs.txt") Go source packages, Go 1.27 and etcd 3.5"
apt-get $O download -qq $(cat "$W/pkgs.txt") golang-1.27-go golang-1.27-src etcd-server/trixie >/dev/null

# 3. unpack (no install): sources land in usr/share/gocode/src, Go in usr/lib/go-1.27
for f in "$W"/debs/golang-*.deb; do dpkg-deb -x "$f" "$W/root"; done
dpkg-deb -x "$W"/debs/etcd-server_*.deb "$W/etcdroot"
cp "$W/etcdroot/usr/bin/etcd" "$OUT/etcd"

# 4. GOPATH-mode build (Debian -dev packages are a ready GOPATH; no module/vendor setup needed)
export GOROOT=$W/root/usr/lib/go-1.27 GOPATH=$W/root/usr/share/gocode GO111MODULE=off \
       GOCACHE=$W/gocache GOFLAGS= GOTOOLCHAIN=local GOPROXY=off CGO_ENABLED=0
export PATH=$GOROOT/bin:$PATH
say "building apiextensions-apiserver with $(go version | cut -d" " -f3) (about 5 minutes on 2 cores)"
cd "$GOPATH/src/k8s.io/apiextensions-apiserver"
# Standalone fixes (upstream main assumes kube-apiserver's aggregator in front):
#  - serve root /apis discovery incl. CRD groups (else kubectl/client-go discovery 404s)
#  - set OpenAPIConfig (v2) so the CRD OpenAPI v2/v3 controllers run (else kubectl validation fails)
patch -s -p1 -N -r - < "$PATCH_DIR/standalone-discovery-openapi.patch" >/dev/null || true
grep -q 'standalone patch' pkg/cmd/server/options/options.go
V=$(dpkg-deb -f "$W"/debs/golang-k8s-apiextensions-apiserver-dev_*.deb Version | sed 's/^0\./1./;s/-.*//')
go build -trimpath -ldflags "-s -w \
  -X k8s.io/component-base/version.gitVersion=v$V \
  -X k8s.io/component-base/version.gitMajor=1 \
  -X k8s.io/component-base/version.gitMinor=$(echo $V | cut -d. -f2) \
  -X k8s.io/component-base/version.gitTreeState=clean \
  -X k8s.io/component-base/version.buildDate=$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
  -o "$OUT/apiextensions-apiserver" .
say "ready: $OUT (v$V; the version is served at GET /version, there is no --version flag)"
done_msg "${1:-}"
