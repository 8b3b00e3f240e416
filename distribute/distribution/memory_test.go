package distribution_test

import (
	"testing"

	"github.com/gokeras/gokeras/distribute/distribution"
)

// TestModelParallelBytesFallWithTheModelAxis: the shards and Adam slots a
// device holds shrink as 1/model: on 1x1, 1x2 and 1x4 meshes each device
// holds 1, 1/2 and 1/4 of the weights and of the slots (every dimension
// split here divides by 4), and nothing more between steps; during a
// step it holds whole only the weights one kernel reads (none on 1x1,
// where its shards are whole).
func TestModelParallelBytesFallWithTheModelAxis(t *testing.T) {
	x, y := tokens(8, 3)
	var full int64
	for _, m := range []int{1, 2, 4} {
		mp, err := distribution.NewModelParallel(layoutMap(t, mesh(t, 1, m)), "batch")
		if err != nil {
			t.Fatal(err)
		}
		got := train(t, mp, x, y, 8)
		var weights int64
		for _, w := range got.weights {
			weights += 4 * int64(len(w))
		}
		mem := mp.Memory()
		if len(mem) != m {
			t.Fatalf("%d devices in Memory, want %d", len(mem), m)
		}
		if m == 1 {
			full = mem[0].Shards + mem[0].Slots
		}
		for _, dm := range mem {
			t.Logf("1x%d %s: shards %d B, slots %d B, gathered %d B now, %d B in a step (weights %d B)", m, dm.Device, dm.Shards, dm.Slots, dm.Gathered, dm.StepGathered, weights)
			if dm.Shards != weights/int64(m) {
				t.Errorf("1x%d %s holds %d B of shards, want %d", m, dm.Device, dm.Shards, weights/int64(m))
			}
			// Adam: two slots the shard's size, plus the step counter.
			if dm.Slots != 2*weights/int64(m)+4 {
				t.Errorf("1x%d %s holds %d B of slots, want %d", m, dm.Device, dm.Slots, 2*weights/int64(m)+4)
			}
			if dm.Gathered != 0 {
				t.Errorf("1x%d %s holds %d B of gathered weights between steps, want 0", m, dm.Device, dm.Gathered)
			}
			// A kernel borrows the split weights it reads: at most the
			// largest (the first Dense kernel, 40x16) and a bias at once.
			if m == 1 && dm.StepGathered != 0 || m > 1 && (dm.StepGathered < 4*40*16 || dm.StepGathered > 4*(40*16+16)) {
				t.Errorf("1x%d %s gathered %d B at once in a step, want %d", m, dm.Device, dm.StepGathered, map[bool]int{true: 0, false: 4 * 40 * 16}[m == 1])
			}
		}
		if m == 4 && 4*(mem[0].Shards+mem[0].Slots) > full+3*4 {
			t.Errorf("1x4: a device holds %d B of shards and slots, more than a quarter of one device's %d", mem[0].Shards+mem[0].Slots, full)
		}
	}
}
