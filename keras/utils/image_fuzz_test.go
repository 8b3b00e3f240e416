package utils

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// allocated returns the bytes fn allocates.
func allocated(fn func()) uint64 {
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	fn()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// FuzzDecodeImage decodes arbitrary bytes as image_dataset_from_directory
// (TensorFlow's rules, every channel count) and load_img (PIL's) do: an
// error or an image whose samples fill its announced size, never a panic,
// and no allocation beyond what a decoded image of the announced (and
// bounded) size needs.
func FuzzDecodeImage(f *testing.F) {
	for _, dir := range []string{"testdata/data_utils/images/a", "testdata/data_utils/images/b", "testdata/data_utils/images/c"} {
		files, _ := filepath.Glob(dir + "/*")
		for _, p := range files {
			if b, err := os.ReadFile(p); err == nil && len(b) < 4096 {
				f.Add(b)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var maxPix int
		alloc := allocated(func() {
			for _, ch := range []int{1, 3, 4} {
				p, err := decodeTF(data, ch)
				if err != nil {
					continue
				}
				if p.c != ch || len(p.pix) != p.h*p.w*p.c || p.h*p.w > MaxImagePixels {
					t.Fatalf("channels %d: %dx%dx%d with %d samples", ch, p.h, p.w, p.c, len(p.pix))
				}
				maxPix = max(maxPix, p.h*p.w)
			}
			if p, err := decodePIL(data); err == nil {
				if n := p.w * p.h; (p.pix16 == nil && len(p.pix) != n*p.bands()) || (p.pix16 != nil && len(p.pix16) != n) {
					t.Fatalf("PIL %s %dx%d with %d samples", p.mode, p.w, p.h, len(p.pix))
				}
				maxPix = max(maxPix, p.w*p.h)
				for _, m := range []string{"L", "RGB", "RGBA"} {
					p.convert(m)
				}
			}
		})
		// Each decoder holds at most a few 8-byte-per-pixel copies of the
		// image (Go's 64-bit images, upsampled chroma, the result). A file
		// may announce up to maxPixelsPerByte pixels a byte (what deflate
		// can expand a 1-bit PNG to), which Go's decoders allocate before
		// they find the data short: that is paid for by the bound.
		if limit := uint64(8<<20 + 200*maxPix + 16*maxPixelsPerByte*len(data)); alloc > limit {
			t.Errorf("%d bytes (%d pixels) allocated %d, more than %d", len(data), maxPix, alloc, limit)
		}
	})
}
