package layers

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/gokeras/gokeras/ops"
)

// FuzzPreprocessingAdapt feeds arbitrary float32 data (NaN, infinities,
// huge values) and shapes to the Adapt of Normalization, Discretization
// and IntegerLookup: an error or a result, never a panic.
func FuzzPreprocessingAdapt(f *testing.F) {
	f.Add([]byte{0, 0, 128, 63, 0, 0, 0, 64, 0, 0, 64, 64, 0, 0, 128, 64}, uint8(2), uint8(3))
	f.Add([]byte{0, 0, 192, 127, 0, 0, 128, 127}, uint8(1), uint8(1))
	f.Fuzz(func(t *testing.T, b []byte, rows, bins uint8) {
		if len(b) > 4096 {
			return
		}
		data := make([]float32, len(b)/4)
		for i := range data {
			data[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		}
		r := int(rows%8) + 1
		shape := ops.Shape{r, len(data) / r}
		data = data[:shape.Size()]
		_ = NewNormalization(NormalizationSettings{}).Adapt(shape, data)
		_ = NewNormalization(NormalizationSettings{AxisNone: true}).Adapt(shape, data)
		d := NewDiscretization(DiscretizationSettings{NumBins: int(bins%20) + 1, Epsilon: 0.1})
		if d.Adapt(shape, data) == nil {
			bb := d.BinBoundaries()
			if len(bb) > int(bins%20)+1 {
				t.Fatalf("%d boundaries for %d bins", len(bb), bins%20+1)
			}
		}
		for _, mode := range []string{"int", "tf_idf"} {
			l := NewIntegerLookup(IntegerLookupSettings{OutputMode: mode, MaxTokens: int(bins%10) + 2})
			if l.Adapt(shape, data) == nil && l.VocabularySize() > int(bins%10)+2 {
				t.Fatalf("vocabulary of %d beyond max_tokens %d", l.VocabularySize(), bins%10+2)
			}
		}
	})
}
