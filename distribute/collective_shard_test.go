package distribute

import (
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
)

// naiveBlock lists the flat indices of b in its row-major order, the slow
// way: every index of the whole array, kept when it lies in the box.
func naiveBlock(b Block) []int {
	total := FullBlock(b.Shape).Size()
	var out []int
	for flat := 0; flat < total; flat++ {
		rest, in := flat, true
		for k := len(b.Shape) - 1; k >= 0; k-- {
			i := rest % b.Shape[k]
			rest /= b.Shape[k]
			in = in && i >= b.Lo[k] && i < b.Hi[k]
		}
		if in {
			out = append(out, flat)
		}
	}
	return out
}

func randomBlock(rng *rand.Rand, shape []int) Block {
	b := FullBlock(shape)
	for k, d := range shape {
		lo := rng.IntN(d + 1)
		b.Lo[k], b.Hi[k] = lo, lo+rng.IntN(d-lo+1)
	}
	return b
}

func TestBlockRunsMatchNaiveIndexing(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	shapes := [][]int{{}, {7}, {3, 5}, {2, 3, 4}, {4, 1, 3, 2}}
	for _, sh := range shapes {
		for trial := 0; trial < 40; trial++ {
			b := randomBlock(rng, sh)
			if trial == 0 {
				b = FullBlock(sh)
			}
			if err := b.Check(); err != nil {
				t.Fatal(err)
			}
			want := naiveBlock(b)
			var got []int
			b.Runs(func(off, n int) {
				for j := 0; j < n; j++ {
					got = append(got, off+j)
				}
			})
			if len(got) != len(want) || len(got) != b.Size() {
				t.Fatalf("block %+v: runs cover %d elements, want %d (Size %d)", b, len(got), len(want), b.Size())
			}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("block %+v: element %d at %d, want %d", b, i, got[i], want[i])
				}
			}
			full := make([]float32, FullBlock(sh).Size())
			for i := range full {
				full[i] = float32(i)
			}
			part := make([]float32, b.Size())
			b.Extract(part, full)
			for i, f := range want {
				if part[i] != float32(f) {
					t.Fatalf("Extract of %+v: value %d is %v, want %v", b, i, part[i], f)
				}
			}
			back := make([]float32, len(full))
			b.Insert(back, part)
			for _, f := range want {
				if back[f] != float32(f) {
					t.Fatalf("Insert of %+v: index %d is %v", b, f, back[f])
				}
			}
		}
	}
}

func TestBlockCheckRefusesBadBoxes(t *testing.T) {
	for _, b := range []Block{
		{Shape: []int{4}, Lo: []int{0}, Hi: []int{5}},
		{Shape: []int{4}, Lo: []int{3}, Hi: []int{2}},
		{Shape: []int{4, 2}, Lo: []int{0}, Hi: []int{4, 2}},
	} {
		if b.Check() == nil {
			t.Errorf("Check(%+v) = nil, want an error", b)
		}
	}
}

// runAll runs fn on n goroutines, one per replica, and returns their errors.
func runAll(n int, fn func(r int) error) []error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	for r := 0; r < n; r++ {
		wg.Add(1)
		go func(r int) {
			defer wg.Done()
			errs[r] = fn(r)
		}(r)
	}
	wg.Wait()
	return errs
}

// TestReduceScatterIsTheAllReduceOfItsBlock: every replica's block of the
// reduce-scatter is bitwise the same block of MirroredStrategy's
// all-reduce, on values whose float32 sums depend on the order.
func TestReduceScatterIsTheAllReduceOfItsBlock(t *testing.T) {
	const n = 4
	shapes := [][]int{{6, 5}, {9}, {}}
	rng := rand.New(rand.NewPCG(3, 4))
	in := make([][][]float32, n)
	for r := range in {
		for _, sh := range shapes {
			b := make([]float32, FullBlock(sh).Size())
			for i := range b {
				b[i] = float32(rng.NormFloat64()) * float32(1+r*1000)
			}
			in[r] = append(in[r], b)
		}
	}
	// The reference: the all-reduce on copies.
	ref := make([][][]float32, n)
	for r := range ref {
		for _, b := range in[r] {
			ref[r] = append(ref[r], append([]float32(nil), b...))
		}
	}
	ar := newAllReducer(n)
	for _, err := range runAll(n, func(r int) error { return ar.allReduceSum(r, ref[r]) }) {
		if err != nil {
			t.Fatal(err)
		}
	}
	c := NewShardCollective(n)
	blocks := make([][]Block, n)
	outs := make([][][]float32, n)
	for r := 0; r < n; r++ {
		// Replica r wants column block r of the matrix, half the vector,
		// and the scalar.
		m := FullBlock(shapes[0])
		m.Lo[1], m.Hi[1] = min(r*2, 5), min(r*2+2, 5)
		v := FullBlock(shapes[1])
		v.Lo[0], v.Hi[0] = (r%2)*5, min((r%2)*5+5, 9)
		blocks[r] = []Block{m, v, FullBlock(nil)}
		for _, b := range blocks[r] {
			outs[r] = append(outs[r], make([]float32, b.Size()))
		}
	}
	group := []int{0, 1, 2, 3}
	for step := 0; step < 3; step++ { // reused call after call
		for _, err := range runAll(n, func(r int) error { return c.ReduceScatter(r, in[r], blocks[r], group, outs[r]) }) {
			if err != nil {
				t.Fatal(err)
			}
		}
		for r := 0; r < n; r++ {
			for i, b := range blocks[r] {
				want := make([]float32, b.Size())
				b.Extract(want, ref[0][i])
				for j := range want {
					if outs[r][i][j] != want[j] {
						t.Fatalf("step %d replica %d buffer %d element %d: %v, the all-reduce gives %v", step, r, i, j, outs[r][i][j], want[j])
					}
				}
			}
		}
	}
}

func TestReduceScatterOverASubgroupSumsOnlyIt(t *testing.T) {
	const n = 4
	c := NewShardCollective(n)
	full := make([][][]float32, n)
	for r := range full {
		full[r] = [][]float32{{float32(r + 1), float32(10 * (r + 1))}}
	}
	outs := make([][][]float32, n)
	errs := runAll(n, func(r int) error {
		// Data groups {0,2} and {1,3}; each takes element r/2.
		group := []int{r % 2, r%2 + 2}
		b := Block{Shape: []int{2}, Lo: []int{r / 2}, Hi: []int{r/2 + 1}}
		outs[r] = [][]float32{make([]float32, 1)}
		return c.ReduceScatter(r, full[r], []Block{b}, group, outs[r])
	})
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	want := []float32{1 + 3, 2 + 4, 10 + 30, 20 + 40}
	for r := range want {
		if outs[r][0][0] != want[r] {
			t.Errorf("replica %d: %v, want %v", r, outs[r][0][0], want[r])
		}
	}
}

func TestAllGatherAssemblesTheWholeFromTheGroup(t *testing.T) {
	const n = 4 // a 2x2 mesh: groups {0,1} and {2,3} each split a 3x4 matrix by columns
	whole := make([]float32, 12)
	for i := range whole {
		whole[i] = float32(i) + 0.5
	}
	c := NewShardCollective(n)
	fulls := make([][]float32, n)
	for step := 0; step < 2; step++ {
		errs := runAll(n, func(r int) error {
			b := Block{Shape: []int{3, 4}, Lo: []int{0, (r % 2) * 2}, Hi: []int{3, (r%2)*2 + 2}}
			shard := make([]float32, b.Size())
			b.Extract(shard, whole)
			fulls[r] = make([]float32, 12)
			group := []int{r - r%2, r - r%2 + 1}
			return c.AllGather(r, [][]float32{shard}, []Block{b}, group, [][]float32{fulls[r]})
		})
		for _, err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		for r := range fulls {
			for i := range whole {
				if fulls[r][i] != whole[i] {
					t.Fatalf("step %d replica %d element %d: %v, want %v", step, r, i, fulls[r][i], whole[i])
				}
			}
		}
	}
}

// TestShardCollectiveMismatchFailsEveryReplica: a replica depositing a
// buffer of another size is an error on every replica, not a hang or a
// read past the end; after Reset the collective works again.
func TestShardCollectiveMismatchFailsEveryReplica(t *testing.T) {
	const n = 3
	c := NewShardCollective(n)
	errs := runAll(n, func(r int) error {
		size := 4
		if r == 2 {
			size = 6
		}
		full := [][]float32{make([]float32, size)}
		b := FullBlock([]int{size})
		return c.ReduceScatter(r, full, []Block{b}, []int{0, 1, 2}, [][]float32{make([]float32, size)})
	})
	failed := 0
	for _, err := range errs {
		if err != nil {
			failed++
		}
	}
	if failed != n {
		t.Fatalf("errors %v: want all %d replicas to fail", errs, n)
	}
	found := false
	for _, err := range errs {
		found = found || strings.Contains(err.Error(), "values on replica")
	}
	if !found {
		t.Errorf("no error names the sizes: %v", errs)
	}
	c.Reset()
	errs = runAll(n, func(r int) error {
		return c.AllReduceSum(r, [][]float32{{float32(r)}})
	})
	for _, err := range errs {
		if err != nil {
			t.Fatalf("after Reset: %v", err)
		}
	}
}

func TestShardCollectiveRefusesBadArguments(t *testing.T) {
	c := NewShardCollective(1)
	if err := c.ReduceScatter(0, [][]float32{{1}}, []Block{FullBlock([]int{1})}, nil, [][]float32{{0}}); err == nil {
		t.Error("empty group accepted")
	}
	c.Reset()
	if err := c.AllGather(0, [][]float32{{1}}, []Block{FullBlock([]int{1})}, []int{3}, [][]float32{{0}}); err == nil {
		t.Error("group naming replica 3 of 1 accepted")
	}
	c.Reset()
	if err := c.AllGather(0, [][]float32{{1, 2}}, []Block{FullBlock([]int{1})}, []int{0}, [][]float32{{0}}); err == nil {
		t.Error("shard larger than its block accepted")
	}
}
