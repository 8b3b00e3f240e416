package distribute

import (
	"testing"

	"github.com/gokeras/gokeras/ops"
)

// TestPartitioners: shard counts from TF's formulas, worked by hand (float32,
// 4 bytes; the first rows are the examples of TF's docs).
func TestPartitioners(t *testing.T) {
	for _, c := range []struct {
		p     Partitioner
		shape ops.Shape
		want  int
	}{
		{FixedShardsPartitioner(2), ops.Shape{10, 3}, 2}, // TF's doc example
		{FixedShardsPartitioner(5), ops.Shape{3, 4}, 3},  // no more shards than rows
		{FixedShardsPartitioner(0), ops.Shape{8}, 1},     // n < 1 is 1
		{FixedShardsPartitioner(4), ops.Shape{}, 1},      // a scalar is never split
		{MinSizePartitioner(4, 2), ops.Shape{6, 1}, 2},   // 24 B / 4 = 6, capped at 2
		{MinSizePartitioner(4, 10), ops.Shape{6, 1}, 6},  // 6 shards of 4 B
		{MinSizePartitioner(24, 10), ops.Shape{6, 1}, 1}, // 24 B fill one shard
		{MinSizePartitioner(10, 10), ops.Shape{6, 1}, 3}, // ceil(24/10) = 3
		{MinSizePartitioner(256<<10, 16), ops.Shape{1024, 1024}, 16},
		{MinSizePartitioner(256<<10, 4), ops.Shape{1024, 1024}, 4},
		{MinSizePartitioner(256<<10, 16), ops.Shape{10, 10}, 1},
		{MaxSizePartitioner(4, 0), ops.Shape{6, 1}, 6},    // TF's doc example
		{MaxSizePartitioner(4, 2), ops.Shape{6, 1}, 2},    // capped
		{MaxSizePartitioner(1024, 0), ops.Shape{6, 1}, 1}, // all in one
		{MaxSizePartitioner(10, 0), ops.Shape{6, 1}, 3},   // floor(10/4) = 2 rows a shard
		{MaxSizePartitioner(7, 0), ops.Shape{5, 2}, 5},    // a row (8 B) exceeds the limit: one row a shard
		{MaxSizePartitioner(100, 0), ops.Shape{10, 5}, 2}, // 20 B rows, 5 a shard
	} {
		if got := c.p.NumShards(c.shape, 4); got != c.want {
			t.Errorf("%v on %v: %d shards, want %d", c.p, c.shape, got, c.want)
		}
	}
}

func TestShardRows(t *testing.T) {
	got := shardRows(10, 3)
	if len(got) != 3 || got[0] != 4 || got[1] != 3 || got[2] != 3 {
		t.Fatalf("shardRows(10, 3) = %v, want [4 3 3]", got)
	}
}
