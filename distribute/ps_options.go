package distribute

import (
	"os"
	"time"
)

// ParameterServerOption configures [NewParameterServerStrategy].
type ParameterServerOption func(*psConfig)

type psConfig struct {
	partitioner    Partitioner
	maxStaleness   int
	connectTimeout time.Duration
	rpcTimeout     time.Duration
	stepTimeout    time.Duration
	probeInterval  time.Duration
	chiefTimeout   time.Duration
	tlsFiles       [3]string // CA, certificate, key (ClusterTLS)
	listen         string    // ListenAddress
	memBudget      int64     // ServerMemoryBudget
	lookupEnv      func(string) (string, bool)
}

func defaultPSConfig() psConfig {
	return psConfig{
		maxStaleness:   -1,
		connectTimeout: 30 * time.Second,
		rpcTimeout:     60 * time.Second,
		stepTimeout:    10 * time.Minute,
		probeInterval:  500 * time.Millisecond,
		chiefTimeout:   2 * time.Minute,
		memBudget:      DefaultServerMemoryBudget,
		lookupEnv:      os.LookupEnv,
	}
}

// VariablePartitioner splits the variables that [ParameterServerStrategy.Track]
// places into shards along axis 0, as TF's variable_partitioner: see
// [FixedShardsPartitioner], [MinSizePartitioner], [MaxSizePartitioner]. By
// default no variable is split.
func VariablePartitioner(p Partitioner) ParameterServerOption {
	return func(c *psConfig) { c.partitioner = p }
}

// MaxStaleness bounds how far apart the workers may drift (stale
// synchronous parallel): the coordinator gives a worker no new function
// while it has finished more than k functions more than the slowest live
// worker (a dead worker is not waited for; one that rejoins starts level
// with the slowest). k < 0 (the default) is fully asynchronous, as
// TensorFlow; k = 0 keeps the workers in step.
func MaxStaleness(k int) ParameterServerOption {
	return func(c *psConfig) { c.maxStaleness = k }
}

// ConnectTimeout bounds how long the strategy waits for a parameter server
// to answer when it starts (30 s by default): the servers may start after
// the workers, but one that never comes is an error naming its address.
func ConnectTimeout(d time.Duration) ParameterServerOption {
	return func(c *psConfig) {
		if d > 0 {
			c.connectTimeout = d
		}
	}
}

// RPCTimeout is the deadline of every call to a parameter server and of
// every wait in the strategy (a staleness wait, a worker waiting for a
// function to be registered): 60 s by default.
func RPCTimeout(d time.Duration) ParameterServerOption {
	return func(c *psConfig) {
		if d > 0 {
			c.rpcTimeout = d
		}
	}
}

// StepTimeout is the deadline of one scheduled function on a worker (10
// minutes by default); a worker that takes longer is treated as lost and
// the function is run elsewhere.
func StepTimeout(d time.Duration) ParameterServerOption {
	return func(c *psConfig) {
		if d > 0 {
			c.stepTimeout = d
		}
	}
}

// ChiefTimeout is how long a worker or a server goes without any call
// (the chief pings every task each second) before its Join gives up on a
// chief that is gone and returns an error: 2 minutes by default.
func ChiefTimeout(d time.Duration) ParameterServerOption {
	return func(c *psConfig) {
		if d > 0 {
			c.chiefTimeout = d
		}
	}
}
