package layers

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// benchCorpus is n IMDB-like reviews of 200 words drawn (Zipf) from a
// 30,000-word vocabulary, with capitals and punctuation.
func benchCorpus(n int) []string {
	r := rand.New(rand.NewPCG(1, 2))
	z := rand.NewZipf(r, 1.1, 1, 29999)
	docs := make([]string, n)
	var b strings.Builder
	for i := range docs {
		b.Reset()
		for j := range 200 {
			if j > 0 {
				b.WriteByte(' ')
			}
			fmt.Fprintf(&b, "Word%d", z.Uint64())
			if j%17 == 16 {
				b.WriteString(",")
			}
		}
		b.WriteString(".")
		docs[i] = b.String()
	}
	return docs
}

// BenchmarkTextVectorizationAdapt adapts Keras' IMDB setup (max_tokens
// 20,000) on 1,000 reviews per iteration.
func BenchmarkTextVectorizationAdapt(b *testing.B) {
	docs := benchCorpus(1000)
	b.ResetTimer()
	for range b.N {
		l := NewTextVectorization(TextVectorizationSettings{MaxTokens: 20000, OutputSequenceLength: 200})
		if err := l.Adapt(docs); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(docs)), "ns/doc")
}

// BenchmarkTextVectorizationCall vectorizes a batch of 32 reviews to 200
// ids each.
func BenchmarkTextVectorizationCall(b *testing.B) {
	docs := benchCorpus(1000)
	l := NewTextVectorization(TextVectorizationSettings{MaxTokens: 20000, OutputSequenceLength: 200})
	if err := l.Adapt(docs); err != nil {
		b.Fatal(err)
	}
	batch := docs[:32]
	b.ResetTimer()
	for range b.N {
		if _, err := l.Call(batch); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(batch)), "ns/doc")
}
