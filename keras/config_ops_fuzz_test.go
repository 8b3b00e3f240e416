package keras

import (
	"archive/zip"
	"encoding/json"
	"io"
	"path/filepath"
	"testing"
)

// FuzzOperationNodes is FuzzConfigValues' mutations over whole functional
// configs with operation nodes and mask arguments (the op graph and the
// masked text models of testdata/zoo, as Keras 3.15.1 wrote them): node
// arguments (tensors, constants, slices, arrays), operation configs, mask
// and other keyword arguments changed, then loaded under the budgets of
// FuzzConfigValues and predicted. On every input: no panic, at most
// fuzzMaxTime, at most configFuzzAlloc bytes.
//
//	go test ./keras/ -run '^$' -fuzz '^FuzzOperationNodes$' -fuzztime 10m
func FuzzOperationNodes(f *testing.F) {
	seeds := operationNodeSeeds(f)
	for i := range seeds {
		f.Add(uint16(i), uint32(0), uint8(noMutation), int64(0), 0.0, "")
		f.Add(uint16(i), uint32(97), uint8(mutExtreme), int64(9), 0.0, "")
		f.Add(uint16(i), uint32(13), uint8(mutMap), int64(0), 0.0, "__slice__")
		f.Add(uint16(i), uint32(55), uint8(mutGrowList), int64(40), 0.0, "")
	}
	f.Fuzz(func(t *testing.T, which uint16, pick uint32, kind uint8, num int64, fnum float64, str string) {
		top := deepCopy(seeds[int(which)%len(seeds)])
		tree := map[string]any{"config": top}
		mutate(tree, pick, kind, num, fnum, str)
		if pick>>24 != 0 && kind != noMutation {
			mutate(tree, pick>>8, kind>>4, num>>7, -fnum, str)
		}
		cfg, _ := tree["config"].(map[string]any)
		if cfg == nil {
			return
		}
		boundedBy(t, configFuzzAlloc, func() {
			m, err := loadFuzzConfig(cfg)
			if err != nil || m == nil || !m.Built() {
				return
			}
			_, _ = predictOne(m)
			_, _ = m.GetConfig()
		})
	})
}

// operationNodeSeeds reads the config.json of the zoo's small models.
func operationNodeSeeds(f testing.TB) []map[string]any {
	var out []map[string]any
	for _, name := range []string{"op_graph", "emb_lstm", "emb_gru_pool", "emb_dropout_bilstm", "emb_attention", "masking_lstm"} {
		z, err := zip.OpenReader(filepath.Join("testdata/zoo", name+".keras"))
		if err != nil {
			f.Fatal(err)
		}
		for _, m := range z.File {
			if m.Name != "config.json" {
				continue
			}
			r, err := m.Open()
			if err != nil {
				f.Fatal(err)
			}
			b, err := io.ReadAll(r)
			r.Close()
			if err != nil {
				f.Fatal(err)
			}
			var top map[string]any
			if err := json.Unmarshal(b, &top); err != nil {
				f.Fatal(err)
			}
			out = append(out, top)
		}
		z.Close()
	}
	return out
}

// TestOperationNodeSeedsLoad: the seeds of FuzzOperationNodes load and
// predict as they are.
func TestOperationNodeSeedsLoad(t *testing.T) {
	for _, top := range operationNodeSeeds(t) {
		m, err := loadFuzzConfig(top)
		if err != nil {
			t.Errorf("%v: %v", top["config"].(map[string]any)["name"], err)
			continue
		}
		if _, err := predictOne(m); err != nil {
			t.Errorf("%s: predict: %v", m.Name(), err)
		}
	}
}
