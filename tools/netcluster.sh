#!/usr/bin/env bash
# netcluster.sh: a simulated cluster network on one machine. It makes N
# network namespaces (one per worker) joined by veth pairs through a
# bridge that lives in a namespace of its own, shapes every worker's link
# with tc (tbf for the bandwidth, netem for the latency where the kernel
# has it), and runs a program under mpirun with one process per namespace,
# each pinned to its own core, OpenMPI's TCP transport on those interfaces
# only (no shared memory between the workers).
#
# Nothing outside the namespaces it makes is touched: the addresses
# (10.233.<k>.0/24) live only inside them, the host namespace gets no
# interface. Every run is bounded (-timeout), and the namespaces are
# deleted on any exit (trap), which removes the veths and the bridge.
#
# Usage (as root; the program built with -tags mpi):
#
#   tools/netcluster.sh [-n N] [-rate 1gbit] [-delay 1ms] [-timeout 300] [-cores LIST] -- PROGRAM ARGS...
#   tools/netcluster.sh -check        # can this machine make the cluster? (exit 0 or 1 with the reason)
#
# -n        workers (default 2); more workers than cores share them round robin
# -rate     each link's bandwidth, tc syntax (10gbit, 1gbit; default 1gbit)
# -delay    each link's one-way latency, tc syntax (default 1ms; needs sch_netem)
# -timeout  seconds for the whole mpirun (default 300); it is killed after
# -cores    comma-separated cores to pin the ranks to (default 0..nproc-1)
#
# The environment variable NETCLUSTER_MPIRUN_ARGS adds mpirun arguments.
set -euo pipefail

n=2 rate=1gbit delay=1ms limit=300 cores="" check=0
while [[ $# -gt 0 ]]; do
	case "$1" in
	-n) n=$2; shift 2 ;;
	-rate) rate=$2; shift 2 ;;
	-delay) delay=$2; shift 2 ;;
	-timeout) limit=$2; shift 2 ;;
	-cores) cores=$2; shift 2 ;;
	-check) check=1; shift ;;
	--) shift; break ;;
	-h | -help | --help) sed -n '2,29p' "$0"; exit 0 ;;
	*) echo "netcluster: unknown argument $1 (see -help)" >&2; exit 2 ;;
	esac
done

die() { echo "netcluster: $*" >&2; exit 1; }

[[ $n =~ ^[0-9]+$ && $n -ge 1 && $n -le 64 ]] || die "-n $n: want 1 to 64 workers"
[[ $limit =~ ^[0-9]+$ && $limit -ge 1 ]] || die "-timeout $limit: want seconds"
[[ $(id -u) -eq 0 ]] || die "needs root (network namespaces)"
for tool in ip tc mpirun timeout taskset; do
	command -v "$tool" >/dev/null || die "$tool is not installed (iproute2, openmpi-bin, coreutils, util-linux)"
done

# Names unique to this run: a run never touches another run's namespaces.
tag="gk$$"
sw="${tag}sw"
k=$(($$ % 200 + 20)) # the third octet of this run's subnet
ns_of() { echo "${tag}w$1"; }
made=()
cleanup() {
	local rc=$?
	for ns in "${made[@]}"; do
		ip netns del "$ns" 2>/dev/null || true
	done
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ip netns add "$sw" || die "cannot make a network namespace"
made+=("$sw")
ip -n "$sw" link add br0 type bridge
ip -n "$sw" link set br0 up

# probe netem once: without it the links have the bandwidth but no added latency
have_netem=1
ip -n "$sw" link add probe0 type veth peer name probe1
tc -n "$sw" qdisc add dev probe0 root netem delay 1ms 2>/dev/null || have_netem=0
ip -n "$sw" link del probe0

if [[ $check -eq 1 ]]; then
	command -v mpirun >/dev/null || die "mpirun missing"
	echo "netcluster: namespaces, veth, bridge and tbf work; netem: $([[ $have_netem -eq 1 ]] && echo yes || echo 'no (latency not emulated)')"
	exit 0
fi
[[ $# -ge 1 ]] || die "no program to run (-- PROGRAM ARGS...)"
[[ $have_netem -eq 1 ]] || echo "netcluster: this kernel has no sch_netem: links are shaped to $rate without the $delay latency" >&2

ncpu=$(nproc)
if [[ -z $cores ]]; then
	cores=$(seq -s, 0 $((ncpu - 1)))
fi
IFS=, read -r -a corelist <<<"$cores"

# tbf's burst must hold at least one timer tick of the rate.
burst=$(awk -v r="$rate" 'BEGIN {
	m = 1; v = r; sub(/[a-zA-Z]+$/, "", v); u = substr(r, length(v) + 1)
	if (u ~ /^[gG]/) m = 1e9; else if (u ~ /^[mM]/) m = 1e6; else if (u ~ /^[kK]/) m = 1e3
	b = v * m / 8 / 250; if (b < 65536) b = 65536; printf "%d", b }')

for ((i = 0; i < n; i++)); do
	ns=$(ns_of $i)
	ip netns add "$ns"
	made+=("$ns")
	ip -n "$ns" link set lo up
	ip -n "$ns" link add eth0 type veth peer name "p$i" netns "$sw"
	ip -n "$sw" link set "p$i" master br0 up
	ip -n "$ns" addr add "10.233.$k.$((i + 1))/24" dev eth0
	ip -n "$ns" link set eth0 up
	# egress shaping on both ends: each direction of the link has the rate
	for side in "$ns eth0" "$sw p$i"; do
		read -r where dev <<<"$side"
		if [[ $have_netem -eq 1 ]]; then
			tc -n "$where" qdisc add dev "$dev" root handle 1: netem delay "$delay" limit 100000
			tc -n "$where" qdisc add dev "$dev" parent 1:1 handle 10: tbf rate "$rate" burst "$burst" latency 50ms
		else
			tc -n "$where" qdisc add dev "$dev" root tbf rate "$rate" burst "$burst" latency 50ms
		fi
	done
done

# mpirun runs in the bridge's namespace (10.233.<k>.254) and starts one
# OpenMPI daemon in each worker's namespace through a launch agent in
# place of ssh (each daemon gets the namespace's name as its host name,
# in a UTS namespace of its own); each rank then takes its core. The
# daemons and ranks meet over the namespaces' addresses only: OpenMPI's
# PMIx connects a rank to its daemon over TCP, which cannot cross network
# namespaces, so a daemon per namespace is needed.
ip -n "$sw" addr add "10.233.$k.254/24" dev br0
ip -n "$sw" link set lo up
wrap=$(mktemp -d /tmp/netcluster.XXXXXX)
trap 'rm -rf "$wrap"; cleanup' EXIT
cat >"$wrap/agent.sh" <<'EOF2'
#!/usr/bin/env bash
# netcluster's launch agent: "agent HOST COMMAND..." as ssh would run it.
host=$1
shift
exec ip netns exec "$host" unshare --uts sh -c "hostname $host && $*"
EOF2
cat >"$wrap/rank.sh" <<EOF2
#!/usr/bin/env bash
r=\${OMPI_COMM_WORLD_RANK:?not under mpirun}
cores=(${corelist[*]})
exec taskset -c \${cores[\$((r % \${#cores[@]}))]} "\$@"
EOF2
chmod +x "$wrap/agent.sh" "$wrap/rank.sh"
hosts=""
for ((i = 0; i < n; i++)); do
	hosts+="${hosts:+,}$(ns_of $i):1"
done

echo "netcluster: $n workers in namespaces ${tag}w0..$((n - 1)), 10.233.$k.0/24, links $rate$([[ $have_netem -eq 1 ]] && echo " + $delay"), cores ${corelist[*]}" >&2
set +e
# shellcheck disable=SC2086
ip netns exec "$sw" timeout --kill-after=10 "$limit" mpirun --allow-run-as-root --bind-to none -np "$n" --host "$hosts" \
	--mca plm rsh --mca plm_rsh_agent "$wrap/agent.sh" --mca plm_rsh_no_tree_spawn 1 \
	--mca oob_tcp_if_include "10.233.$k.0/24" \
	--mca btl self,tcp --mca btl_tcp_if_include "10.233.$k.0/24" \
	--mca pml ob1 --mca osc ^ucx --mca mtl ^ofi \
	-x GOMAXPROCS=1 -x PATH ${NETCLUSTER_MPIRUN_ARGS:-} \
	"$wrap/rank.sh" "$@"
rc=$?
set -e
if [[ $rc -eq 124 || $rc -eq 137 ]]; then
	echo "netcluster: the run did not finish within ${limit}s; stopped" >&2
fi
exit $rc
