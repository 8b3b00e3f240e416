#!/usr/bin/env bash
# arm64_test.sh: the arm64 build's tests under qemu-user (correctness only:
# qemu says nothing about arm64 speed). It vets the whole module for arm64,
# then runs, as GOARCH=arm64 binaries under qemu-aarch64-static, the
# kernels' and vec's tests (NEON micro-kernel and vector kernels against
# their Go twins and references), the ops tests that drive them (gradient
# checks, fused epilogues, batch norm, pooling, convolutions) and two short
# keras training tests. Installs Debian's qemu-user-static when missing
# (apt-get, through sudo when not root). Takes a few minutes.
set -euo pipefail
cd "$(dirname "$0")/.."

qemu=$(command -v qemu-aarch64-static || true)
if [ -z "$qemu" ]; then
	sudo=""
	[ "$(id -u)" = 0 ] || sudo=sudo
	echo "arm64_test: installing qemu-user-static"
	$sudo apt-get install -y qemu-user-static >/dev/null 2>&1 ||
		{ $sudo apt-get update >/dev/null && $sudo apt-get install -y qemu-user-static >/dev/null; }
	qemu=$(command -v qemu-aarch64-static)
fi

export GOARCH=arm64 CGO_ENABLED=0
step() {
	local t0=$SECONDS
	echo "arm64_test: $*"
	"$@"
	echo "arm64_test: ... $((SECONDS - t0)) s"
}
qtest() { go test -exec "$qemu" -short -count=1 "$@"; }

step go vet ./...
step go vet -tags noasm ./internal/kernels/ ./internal/vec/
step qtest -run 'TestSgemmKernels|TestSgemmAlphaBeta|TestSgemmSpecialValues|TestSgemmPanics|TestSaxpySdot|TestPackGather|TestBF16|TestConvert|TestF16|TestRoundBF16' ./internal/kernels/
step qtest -tags noasm -run 'TestDot4x4|TestSgemmAlphaBeta' ./internal/kernels/
step qtest ./internal/vec/
step qtest -run 'TestGradients$|TestGradientsFused|TestBatchNormFusedMatchesComposite|TestConvBiasFusionBitwise|TestMaxPoolMatchesLoops|TestMaxPoolOfReluMixed|TestUnaryKernels|TestBinaryBroadcastPatterns' ./ops/
step qtest -run 'TestFitLearns$|TestMixedBFloat16TrainStepsMatchKeras' ./keras/
echo "arm64_test: all passed in $SECONDS s"
