package distribute

import (
	"fmt"
	"net"
	"os"
	"strconv"

	"github.com/gokeras/gokeras/internal/mpi"
)

// mpiPSResolverName is the Name of NewMPIParameterServerResolver's
// resolver; a strategy made from it ends MPI when its task is done.
const mpiPSResolverName = "MPI (parameter servers)"

// maxAddrBytes bounds one task's address in the MPI exchange.
const maxAddrBytes = 256

// psRole maps an MPI rank of a parameter-server launch to its task: rank
// 0 is the chief, the next numPS ranks the servers, the rest the workers.
func psRole(rank, size, numPS int) (taskType string, id int, err error) {
	if numPS < 1 || size < numPS+2 {
		return "", 0, fmt.Errorf("distribute: an MPI launch of %d processes cannot hold a chief, %d parameter server(s) and at least one worker (mpirun -np %d or more)", size, numPS, numPS+2)
	}
	switch {
	case rank == 0:
		return "chief", 0, nil
	case rank <= numPS:
		return "ps", rank - 1, nil
	default:
		return "worker", rank - 1 - numPS, nil
	}
}

// psSpecOf builds the cluster spec from the addresses of every rank.
func psSpecOf(addrs []string, numPS int) ClusterSpec {
	return ClusterSpec{"chief": addrs[:1], "ps": addrs[1 : 1+numPS], "worker": addrs[1+numPS:]}
}

// packAddr writes addr into maxAddrBytes/8 int64 words (for MPI's
// allgather); unpackAddr reads it back.
func packAddr(addr string) ([]int64, error) {
	if len(addr) > maxAddrBytes-1 {
		return nil, fmt.Errorf("distribute: address %q is longer than %d bytes", clip(addr), maxAddrBytes-1)
	}
	words := make([]int64, maxAddrBytes/8)
	b := []byte(addr)
	for i, c := range b {
		words[i/8] |= int64(c) << (8 * (i % 8))
	}
	return words, nil
}

func unpackAddr(words []int64) string {
	var b []byte
	for i := 0; i < 8*len(words); i++ {
		c := byte(words[i/8] >> (8 * (i % 8)))
		if c == 0 {
			break
		}
		b = append(b, c)
	}
	return string(b)
}

// NewMPIParameterServerResolver describes a parameter-server cluster
// launched by mpirun (build with -tags mpi): rank 0 is the chief, ranks 1
// to numPS the parameter servers, the others the workers (so mpirun -np
// numPS+1+workers). Each rank picks a free port on its host
// (os.Hostname()) and the ranks exchange their addresses with one MPI
// allgather; after that MPI carries nothing, the strategy talks gRPC, and
// ends MPI (MPI_Finalize) when Join or Close returns.
// Under mpirun a rank that dies ends the whole job (mpirun's doing), so
// the tolerance of lost workers needs a launcher per task (TF_CONFIG).
func NewMPIParameterServerResolver(numPS int) (ClusterResolver, error) {
	if err := mpi.Init(); err != nil {
		return nil, fmt.Errorf("distribute: NewMPIParameterServerResolver: %w", err)
	}
	rank, size := mpi.Rank(), mpi.Size()
	typ, id, err := psRole(rank, size, numPS)
	if err != nil {
		return nil, err
	}
	host, err := os.Hostname()
	if err != nil {
		return nil, fmt.Errorf("distribute: NewMPIParameterServerResolver: rank %d: %w", rank, err)
	}
	l, err := net.Listen("tcp", ":0")
	if err != nil {
		return nil, fmt.Errorf("distribute: NewMPIParameterServerResolver: rank %d: no free port: %w", rank, err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	mine, err := packAddr(net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil {
		return nil, err
	}
	all := make([]int64, len(mine)*size)
	if err := mpi.AllgatherInt64(mine, all); err != nil {
		return nil, fmt.Errorf("distribute: NewMPIParameterServerResolver: exchanging addresses: %w", err)
	}
	addrs := make([]string, size)
	for r := range addrs {
		addrs[r] = unpackAddr(all[r*len(mine) : (r+1)*len(mine)])
	}
	local, _ := mpi.LocalRank()
	return &resolved{name: mpiPSResolverName, rank: rank, world: size, localRank: local, chief: rank == 0,
		taskType: typ, taskID: id, spec: psSpecOf(addrs, numPS)}, nil
}
