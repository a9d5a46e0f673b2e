#!/usr/bin/env bash
# kubegen's way to get envtest binaries (etcd + kube-apiserver v1.20.2, plus kubectl and the Go sample-controller
# used as a speed reference) on a fresh Debian machine, using only Debian's packages:
#   etcd            <- Debian package etcd-server (3.4)
#   kube-apiserver  <- built from Debian's source package 'kubernetes' (v1.20.2) with Debian's Go
#   kubectl         <- the kubectl already on PATH, else Debian package kubernetes-client (v1.20)
#   sample-controller      <- kubernetes/sample-controller from the same tree, as shipped
#   sample-controller-fast <- the same with client-side throttling off (SC_QPS, default unlimited) and SC_WORKERS
#                             workers (default 2)
#   informerbench   <- informerbench/main.go (next to this script) built in the same tree (its vendored client-go and the
#                      sample-controller's generated Foo informers): the client-go reference of `npm run bench:scale`
#   kube-controller-manager, kube-scheduler, kubemark
#                   <- cmd/kube-controller-manager, cmd/kube-scheduler and cmd/kubemark from the same tree: the
#                      `cluster` envtest profile (garbage collector, namespaces, Deployments -> ReplicaSets -> Pods,
#                      scheduling, and Kubemark hollow nodes: a real kubelet with a fake runtime, no containers).
#                      About 6 more minutes on 2 cores, once. kubemark is built with
#                      envtest-cluster/kubemark-hollow-nodes.patch (next to this script) so that several hollow nodes
#                      share one host and run as any user, where upstream runs each in a privileged pod of its own:
#                      the fake runtime's socket and the kubelet's root dir under $TMPDIR (upstream: the fixed
#                      /tmp/kubelet_remote.sock, shared by every node, and /tmp), no healthz on the fixed
#                      127.0.0.1:10248, the kubelet's API on 127.0.0.1 only, and no OOM watcher when /dev/kmsg cannot
#                      be read (not root with kernel.dmesg_restrict=1; upstream's KubeletInUserNamespace does the
#                      same). The tree is restored after the build.
# The binaries land in $ENVTEST_DIR/bin (default ~/.cache/envtest/k8s-1.20.2/bin): hand that folder to tests as
# KUBEBUILDER_ASSETS. A second run finds them there and returns at once (about 5 minutes the first time); when only
# some are missing (e.g. informerbench, added later), only those are built.
# Usage: hack/setup-envtest.sh                 -> prints the bin folder on its last line
#        eval "$(hack/setup-envtest.sh --export)" -> sets KUBEBUILDER_ASSETS in the calling shell
set -euo pipefail
ENVTEST_DIR=${ENVTEST_DIR:-$HOME/.cache/envtest/k8s-1.20.2}
BIN=$ENVTEST_DIR/bin
HACK=$(dirname "$(readlink -f "$0")")
want=(etcd kube-apiserver kubectl sample-controller sample-controller-fast informerbench
      kube-controller-manager kube-scheduler kubemark)
done_already=1
for b in "${want[@]}"; do [[ -x $BIN/$b ]] || done_already=0; done
say() { echo "setup-envtest: $*" >&2; }
if [[ $done_already == 1 ]]; then
  [[ ${1:-} == --export ]] && echo "export KUBEBUILDER_ASSETS=$BIN" || echo "$BIN"
  exit 0
fi
SUDO=""; [[ $(id -u) == 0 ]] || SUDO=sudo
mkdir -p "$BIN" "$ENVTEST_DIR/src"
pkgs=(golang-go etcd-server rsync jq dpkg-dev golang-github-modern-go-reflect2-dev)
command -v kubectl >/dev/null || pkgs+=(kubernetes-client)
installed=$(dpkg-query -W -f='${Status}\n' "${pkgs[@]}" 2>/dev/null | grep -c '^install ok installed$' || true)
if [[ $installed == "${#pkgs[@]}" ]]; then
  say "Go, etcd, kubectl and build tools already installed"
else
  if ! grep -rqs "deb-src" /etc/apt/sources.list /etc/apt/sources.list.d/; then
    say "enabling Debian source packages"
    printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: bookworm\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
      | $SUDO tee /etc/apt/sources.list.d/envtest-src.sources >/dev/null
  fi
  say "installing Go, etcd, kubectl and build tools from Debian"
  $SUDO apt-get update -qq >/dev/null
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${pkgs[@]}" >/dev/null
fi
cd "$ENVTEST_DIR/src"
if [[ ! -d kubernetes-1.20.2 ]]; then
  if ! grep -rqs "deb-src" /etc/apt/sources.list /etc/apt/sources.list.d/; then
    say "enabling Debian source packages"
    printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: bookworm\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
      | $SUDO tee /etc/apt/sources.list.d/envtest-src.sources >/dev/null
    $SUDO apt-get update -qq >/dev/null
  fi
  say "fetching Debian's kubernetes source package"
  apt-get source --download-only kubernetes >/dev/null 2>&1
  tar xzf kubernetes_*.orig.tar.gz
fi
K=$ENVTEST_DIR/src/kubernetes-1.20.2
# kubernetes 1.20 vendors reflect2 1.0.1, which crashes under Go >= 1.18; Debian ships the fixed 1.0.2.
if ! grep -q go1.18 "$K/vendor/github.com/modern-go/reflect2/go_above_118.go" 2>/dev/null; then
  rm -rf "$K/vendor/github.com/modern-go/reflect2"
  cp -r /usr/share/gocode/src/github.com/modern-go/reflect2 "$K/vendor/github.com/modern-go/reflect2"
  rm -f "$K/vendor/github.com/modern-go/reflect2/go.mod"
fi
mkdir -p "$K/.go/src/k8s.io"
[[ -L $K/.go/src/k8s.io/kubernetes ]] || ln -s ../../.. "$K/.go/src/k8s.io/kubernetes"
# kmake TARGET...: `make WHAT="TARGET..."` in the tree (GOPATH mode, vendored dependencies, offline), log appended.
kmake() { ( cd "$K" && env GOPATH="$K/.go" CGO_ENABLED=0 HOME="$ENVTEST_DIR/home" make WHAT="$*" >>"$ENVTEST_DIR/build.log" 2>&1 ); }
if [[ ! -x $BIN/kube-apiserver || ! -x $BIN/sample-controller ]]; then
  say "building kube-apiserver and sample-controller (about 5 minutes on 2 cores)"
  : >"$ENVTEST_DIR/build.log"
  kmake cmd/kube-apiserver vendor/k8s.io/sample-controller \
    || { say "build failed; see $ENVTEST_DIR/build.log"; tail -20 "$ENVTEST_DIR/build.log" >&2; exit 1; }
  cp "$K/_output/bin/kube-apiserver" "$K/_output/bin/sample-controller" "$BIN/"
fi
SC=$K/staging/src/k8s.io/sample-controller
if [[ ! -x $BIN/sample-controller-fast ]]; then
  say "building sample-controller-fast"
  cp "$SC/main.go" "$ENVTEST_DIR/main.go.orig"
  python3 - "$SC/main.go" <<'PY'
import sys
p = sys.argv[1]; s = open(p).read()
s = s.replace('cfg, err := clientcmd.BuildConfigFromFlags(masterURL, kubeconfig)',
  'cfg, err := clientcmd.BuildConfigFromFlags(masterURL, kubeconfig)\n\tif q, e := strconv.ParseFloat(os.Getenv("SC_QPS"), 32); e == nil { cfg.QPS = float32(q); cfg.Burst = int(q) } else { cfg.QPS = 1e6; cfg.Burst = 1000000 }')
s = s.replace('controller.Run(2, stopCh)', 'controller.Run(scWorkers(), stopCh)')
s = s.replace('import (', 'import (\n\t"os"\n\t"strconv"', 1)
s += '\nfunc scWorkers() int { if n, e := strconv.Atoi(os.Getenv("SC_WORKERS")); e == nil && n > 0 { return n }; return 2 }\n'
open(p, 'w').write(s)
PY
  kmake vendor/k8s.io/sample-controller \
    || { cp "$ENVTEST_DIR/main.go.orig" "$SC/main.go"; say "build of sample-controller-fast failed; see $ENVTEST_DIR/build.log"; exit 1; }
  cp "$K/_output/bin/sample-controller" "$BIN/sample-controller-fast"
  cp "$ENVTEST_DIR/main.go.orig" "$SC/main.go"
fi
if [[ ! -x $BIN/informerbench ]]; then
  say "building informerbench (the client-go shared informer reference of bench:scale)"
  mkdir -p "$K/cmd/informerbench"
  cp "$HACK/informerbench/main.go" "$K/cmd/informerbench/main.go"
  kmake cmd/informerbench \
    || { rm -rf "$K/cmd/informerbench"; say "build of informerbench failed; see $ENVTEST_DIR/build.log"; tail -20 "$ENVTEST_DIR/build.log" >&2; exit 1; }
  cp "$K/_output/bin/informerbench" "$BIN/informerbench"
  rm -rf "$K/cmd/informerbench"
fi
cluster_bins=(kube-controller-manager kube-scheduler kubemark)
missing=()
for b in "${cluster_bins[@]}"; do [[ -x $BIN/$b ]] || missing+=("$b"); done
if (( ${#missing[@]} )); then
  say "building ${missing[*]} for the cluster profile (about 6 minutes on 2 cores)"
  KM_PATCH=$HACK/envtest-cluster/kubemark-hollow-nodes.patch
  # Applied unless an interrupted earlier run left it applied.
  ( cd "$K" && { patch -s -p1 -R --dry-run <"$KM_PATCH" >/dev/null 2>&1 || patch -s -p1 -N -r - --no-backup-if-mismatch <"$KM_PATCH"; } ) \
    || { say "cannot apply $KM_PATCH to $K"; exit 1; }
  unpatch() { ( cd "$K" && patch -s -p1 -R -r - --no-backup-if-mismatch <"$KM_PATCH" ); }
  kmake "${missing[@]/#/cmd/}" \
    || { unpatch; say "build of ${missing[*]} failed; see $ENVTEST_DIR/build.log"; tail -20 "$ENVTEST_DIR/build.log" >&2; exit 1; }
  unpatch
  for b in "${missing[@]}"; do cp "$K/_output/bin/$b" "$BIN/$b"; done
fi
[[ -x $BIN/etcd ]] || cp /usr/bin/etcd "$BIN/etcd"
[[ -x $BIN/kubectl ]] || cp "$(command -v kubectl)" "$BIN/kubectl"
mkdir -p "$ENVTEST_DIR/examples"
cp -r "$K/staging/src/k8s.io/sample-controller/artifacts/examples/." "$ENVTEST_DIR/examples/"
say "ready: $BIN"
[[ ${1:-} == --export ]] && echo "export KUBEBUILDER_ASSETS=$BIN" || echo "$BIN"
