package hdf5

import (
	"bytes"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// fuzzLimits keep a hostile input from spending much memory.
var fuzzLimits = Limits{MaxBytes: 1 << 24, MaxObjects: 1 << 12}

// seeds are the h5py fixtures and a file of our writer.
func seeds(t testing.TB) [][]byte {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.h5"))
	var out [][]byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	var b bytes.Buffer
	if err := Encode(&b, sampleTree(1)); err != nil {
		t.Fatal(err)
	}
	return append(out, b.Bytes())
}

// FuzzDecode feeds arbitrary bytes to Decode: it must return a tree or an
// error, never panic, hang or allocate beyond its limits. (Go minimizes
// each new interesting input before counting it, so with these seeds of
// up to 200 KB the exec counter of a short run stays low; pass
// -fuzzminimizetime 1s to see the real rate, about 4000 execs/s here.)
func FuzzDecode(f *testing.F) {
	for _, s := range seeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		// Once more with checksums ignored, so that mutations reach the
		// parsers behind version 2 structures' checksums.
		ignoreChecksums = true
		Decode(bytes.NewReader(b), int64(len(b)), fuzzLimits)
		ignoreChecksums = false
		g, err := Decode(bytes.NewReader(b), int64(len(b)), fuzzLimits)
		if err != nil {
			return
		}
		// A decoded tree may hold what the writer refuses (duplicate or
		// odd names, huge attributes): it must only not panic.
		Encode(io.Discard, g)
		// The data left in the file (deferred.go) reads into memory of
		// its declared size, or fails, without panicking.
		lim := fuzzLimits
		lim.DeferBytes = 1
		if g, err := Decode(bytes.NewReader(b), int64(len(b)), lim); err == nil {
			walkDatasets(g, "", func(_ string, d *Dataset) {
				if d.Deferred() && d.Len() <= 1<<20 {
					_ = d.CheckData()
					_ = d.ReadFloat32s(make([]float32, d.Len()))
				}
			})
		}
	})
}

// TestCorruptInputs truncates and flips bytes of every seed file: Decode
// must fail cleanly (or succeed) every time, quickly.
func TestCorruptInputs(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	n := 0
	for _, s := range seeds(t) {
		for i := 0; i < 60; i++ {
			cut := rng.Intn(len(s))
			decodeQuick(t, s[:cut])
			n++
		}
		for i := 0; i < 600; i++ {
			b := append([]byte(nil), s...)
			// Metadata sits mostly in the first kilobytes.
			at := min(len(b), 1+rng.Intn(8192))
			for k := 0; k < 1+rng.Intn(4); k++ {
				b[rng.Intn(at)] ^= byte(1 << rng.Intn(8))
			}
			// Half the time past the checksums, to reach what they guard.
			ignoreChecksums = i%2 == 1
			decodeQuick(t, b)
			ignoreChecksums = false
			n++
		}
	}
	t.Logf("%d corrupt inputs decoded without panic", n)
}

func decodeQuick(t *testing.T, b []byte) {
	t.Helper()
	start := time.Now()
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("panic on corrupt input: %v", r)
		}
	}()
	Decode(bytes.NewReader(b), int64(len(b)), fuzzLimits)
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("decoding a corrupt input took %v", d)
	}
}
