package utils_test

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/datasets"
	"github.com/gokeras/gokeras/keras/utils"
	"gorgonia.org/tensor"
)

// text_dataset_from_directory: class names, the texts' bytes (MaxLength
// cuts bytes, not characters, as tf.strings.substr) and labels of the
// first batch; and the order of its index shuffled by numpy's RandomState.
func TestTextDatasetMatchesKeras(t *testing.T) {
	for _, c := range readVectors(t).Texts {
		t.Run(c.Name, func(t *testing.T) {
			if c.FilePaths != nil { // an index_directory case
				ds, err := utils.TextDatasetFromDirectory(textsDir, utils.TextDatasetConfig{Seed: new(c.Seed), Quiet: true, BatchSize: 64})
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(ds.ClassNames(), c.ClassNames) {
					t.Errorf("class names %q, Keras %q", ds.ClassNames(), c.ClassNames)
				}
				// The files' order before the per-pass shuffle; the label
				// of each is its class folder's index.
				paths := relPaths(t, ds, textsDir)
				var labels []int
				for _, p := range paths {
					labels = append(labels, slices.Index(c.ClassNames, strings.Split(p, "/")[0]))
				}
				if !reflect.DeepEqual(paths, c.FilePaths) || !reflect.DeepEqual(labels, c.Labels) {
					t.Errorf("order %q %v, Keras %q %v", paths, labels, c.FilePaths, c.Labels)
				}
				return
			}
			cfg := utils.TextDatasetConfig{Quiet: true}
			for k, v := range c.Args {
				switch k {
				case "shuffle":
					cfg.NoShuffle = !v.(bool)
				case "max_length":
					cfg.MaxLength = int(v.(float64))
				case "label_mode":
					if v == nil {
						cfg.NoLabels = true
					} else {
						cfg.LabelMode = v.(string)
					}
				case "batch_size":
					cfg.BatchSize = int(v.(float64))
				default:
					t.Fatalf("argument %q", k)
				}
			}
			ds, err := utils.TextDatasetFromDirectory(textsDir, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(ds.ClassNames(), c.ClassNames) {
				t.Errorf("class names %q, Keras %q", ds.ClassNames(), c.ClassNames)
			}
			e := firstElement(t, ds)
			texts := e[0].Data().([]string)
			if len(texts) != len(c.RawBytes) {
				t.Fatalf("%d texts, Keras %d", len(texts), len(c.RawBytes))
			}
			for i, want := range c.RawBytes {
				b := make([]byte, len(want))
				for j, v := range want {
					b[j] = byte(v)
				}
				if texts[i] != string(b) {
					t.Errorf("text %d %q, Keras %q", i, texts[i], b)
				}
			}
			if c.Y != nil {
				if got := floats(t, e[1]); !reflect.DeepEqual(got, c.Y) || !reflect.DeepEqual([]int(e[1].Shape()), c.YShape) {
					t.Errorf("labels %v %v, Keras %v %v", e[1].Shape(), got, c.YShape, c.Y)
				}
			} else if len(e) != 1 {
				t.Errorf("%d components without labels, want 1", len(e))
			}
		})
	}
}

// timeseries_dataset_from_array: every window and target of each case
// (compared as sets where Keras shuffles, since tf.data's shuffle is not
// reproduced; the numpy shuffle of the starts is TestPermutationsMatchNumpy).
func TestTimeseriesMatchesKeras(t *testing.T) {
	ts := readVectors(t).Timeseries
	data := make([]float32, len(ts.Data))
	for i, v := range ts.Data {
		data[i] = float32(v)
	}
	x := tensor.New(tensor.WithShape(ts.DataShape...), tensor.WithBacking(data))
	y := tensor.New(tensor.WithShape(len(ts.Targets)), tensor.WithBacking(slices.Clone(ts.Targets)))
	for _, c := range ts.Cases {
		t.Run(c.Name, func(t *testing.T) {
			cfg := utils.TimeseriesConfig{}
			seqLen := 0
			for k, v := range c.Args {
				switch k {
				case "sequence_length":
					seqLen = int(v.(float64))
				case "sequence_stride":
					cfg.SequenceStride = int(v.(float64))
				case "sampling_rate":
					cfg.SamplingRate = int(v.(float64))
				case "batch_size":
					if v == nil {
						cfg.NoBatch = true
					} else {
						cfg.BatchSize = int(v.(float64))
					}
				case "shuffle":
					cfg.Shuffle = v.(bool)
				case "seed":
					cfg.Seed = new(int64(v.(float64)))
				case "start_index":
					cfg.StartIndex = int(v.(float64))
				case "end_index":
					cfg.EndIndex = int(v.(float64))
				default:
					t.Fatalf("argument %q", k)
				}
			}
			var targets *tensor.Dense
			if c.TargetsGiven {
				targets = y
			}
			ds, err := utils.TimeseriesDatasetFromArray(x, targets, seqLen, cfg)
			if err != nil {
				t.Fatal(err)
			}
			type window struct {
				w []float64
				t int64
			}
			var got []window
			for e := range ds.All(context.Background()) {
				xs := floats(t, e[0])
				n := 1
				if !cfg.NoBatch {
					n = e[0].Shape()[0]
				}
				per := len(xs) / n
				for i := range n {
					w := window{w: xs[i*per : (i+1)*per]}
					if c.TargetsGiven {
						switch v := e[1].Data().(type) {
						case []int64:
							w.t = v[i]
						case int64:
							w.t = v
						}
					}
					got = append(got, w)
				}
			}
			if err := ds.Err(); err != nil {
				t.Fatal(err)
			}
			if c.AsSet {
				slices.SortFunc(got, func(a, b window) int { return slices.Compare(a.w, b.w) })
			}
			if len(got) != len(c.Windows) {
				t.Fatalf("%d windows, Keras %d", len(got), len(c.Windows))
			}
			for i, w := range got {
				if !reflect.DeepEqual(w.w, c.Windows[i]) || (c.TargetsGiven && w.t != c.Targets[i]) {
					t.Fatalf("window %d: %v -> %d, Keras %v -> %d", i, w.w, w.t, c.Windows[i], c.Targets[i])
				}
			}
		})
	}
}

// RandomStatePermutation is numpy's RandomState(seed).shuffle.
func TestPermutationsMatchNumpy(t *testing.T) {
	for _, c := range readVectors(t).Permutations {
		got, err := datasets.RandomStatePermutation(c.Seed, c.N)
		if err != nil || !reflect.DeepEqual(got, c.Perm) {
			t.Errorf("seed %d, n %d: %v %v, numpy %v", c.Seed, c.N, got, err, c.Perm)
		}
	}
}
