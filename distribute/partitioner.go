package distribute

import (
	"fmt"
	"math"

	"github.com/gokeras/gokeras/ops"
)

// Partitioner decides how many shards a variable of a ParameterServerStrategy
// is split into, along axis 0, as tf.distribute.experimental.partitioners
// do. NumShards gets the variable's shape and the bytes of one element (4
// for float32) and returns at least 1; it is never called for a scalar.
// Shards differ in size by at most one row, the larger ones first, and are
// placed on the parameter servers round-robin like whole variables.
type Partitioner interface {
	NumShards(shape ops.Shape, elementBytes int) int
}

type fixedShards int

// FixedShardsPartitioner splits every variable into n shards (or as many as
// it has rows, if fewer), as TF's FixedShardsPartitioner(num_shards). n < 1
// is treated as 1.
func FixedShardsPartitioner(n int) Partitioner { return fixedShards(max(n, 1)) }

func (n fixedShards) NumShards(shape ops.Shape, _ int) int {
	if len(shape) == 0 {
		return 1
	}
	return max(1, min(int(n), shape[0]))
}

type minSize struct{ minShardBytes, maxShards int }

// MinSizePartitioner gives each shard at least minShardBytes (TF's default
// is 256 KiB) and makes at most maxShards shards, as TF's
// MinSizePartitioner: shards = max(1, min(rows, maxShards,
// ceil(bytes/minShardBytes))). Values below 1 are treated as 1. (TF's
// bytes_per_string only matters for string variables, which gokeras does
// not have.)
func MinSizePartitioner(minShardBytes, maxShards int) Partitioner {
	return minSize{max(minShardBytes, 1), max(maxShards, 1)}
}

func (p minSize) NumShards(shape ops.Shape, elementBytes int) int {
	if len(shape) == 0 {
		return 1
	}
	total := float64(shape.Size()) * float64(elementBytes)
	return max(1, min(shape[0], p.maxShards, int(math.Ceil(total/float64(p.minShardBytes)))))
}

type maxSize struct{ maxShardBytes, maxShards int }

// MaxSizePartitioner keeps each shard at or below maxShardBytes with as few
// shards as it can, as TF's MaxSizePartitioner: a shard holds
// max(1, floor(maxShardBytes/rowBytes)) rows, so shards = ceil(rows /
// that); maxShards > 0 caps the count (the shards may then be larger).
// maxShardBytes below 1 is treated as 1.
func MaxSizePartitioner(maxShardBytes, maxShards int) Partitioner {
	return maxSize{max(maxShardBytes, 1), maxShards}
}

func (p maxSize) NumShards(shape ops.Shape, elementBytes int) int {
	if len(shape) == 0 || shape[0] == 0 {
		return 1
	}
	rowBytes := float64(shape.Size()) / float64(shape[0]) * float64(elementBytes)
	rowsPerShard := 1
	if rowBytes > 0 {
		rowsPerShard = max(1, int(math.Floor(float64(p.maxShardBytes)/rowBytes)))
	}
	n := (shape[0] + rowsPerShard - 1) / rowsPerShard
	if p.maxShards > 0 {
		n = min(n, p.maxShards)
	}
	return max(n, 1)
}

func (n fixedShards) String() string { return fmt.Sprintf("FixedShardsPartitioner(%d)", int(n)) }
func (p minSize) String() string {
	return fmt.Sprintf("MinSizePartitioner(%d, %d)", p.minShardBytes, p.maxShards)
}
func (p maxSize) String() string {
	return fmt.Sprintf("MaxSizePartitioner(%d, %d)", p.maxShardBytes, p.maxShards)
}

// shardRows splits rows into n parts differing by at most one, the larger
// first (TF's slicing of a partitioned variable).
func shardRows(rows, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = rows / n
		if i < rows%n {
			out[i]++
		}
	}
	return out
}
