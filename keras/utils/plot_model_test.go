package utils_test

import (
	"encoding/xml"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/utils"
)

// branchModel is in -> a -> b, in -> c, concat(b, c) -> out, with the
// sub-model "tower" (t1 -> t2) between out and the final Dense.
func branchModel(t *testing.T) (*keras.Model, string) {
	t.Helper()
	tower := keras.MustSequential(
		layers.NewDense(8, layers.WithName("t1"), layers.WithInputShape(4)),
		layers.NewDense(4, layers.WithName("t2")))
	in := layers.Input([]int{6}, layers.WithName("in"))
	a := layers.Apply(layers.NewDense(5, layers.WithName("a"), layers.WithActivation("relu")), in)
	b := layers.Apply(layers.NewDense(3, layers.WithName("b")), a)
	c := layers.Apply(layers.NewDense(2, layers.WithName("c")), in)
	cat := layers.Apply(layers.NewConcatenate(layers.WithName("cat")), b, c)
	out := layers.Apply(layers.NewDense(4, layers.WithName("out")), cat)
	final := layers.Apply(layers.NewDense(1, layers.WithName("final")), tower.Apply(out))
	m, err := keras.NewModel([]*layers.KerasTensor{in}, []*layers.KerasTensor{final}, keras.ModelName("branchy"))
	if err != nil {
		t.Fatal(err)
	}
	return m, tower.Name()
}

// svgDrawing is what the test reads back from an SVG: each box's title
// (its first text) and rectangle, each arrow's end points, the frames'
// labels and the size in points.
type svgDrawing struct {
	w, h   float64
	boxes  map[string][4]float64
	texts  []string
	frames []string
	lines  [][4]float64
	polys  [][]float64
}

func readSVG(t *testing.T, path string) svgDrawing {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d := svgDrawing{boxes: map[string][4]float64{}}
	dec := xml.NewDecoder(f)
	num := func(attrs []xml.Attr, name string) float64 {
		for _, a := range attrs {
			if a.Name.Local == name {
				v, err := strconv.ParseFloat(strings.TrimSuffix(a.Value, "pt"), 64)
				if err != nil {
					t.Fatalf("attribute %s=%q: %v", name, a.Value, err)
				}
				return v
			}
		}
		t.Fatalf("no attribute %s", name)
		return 0
	}
	var group string
	var rect [4]float64
	first := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed XML: %v", err)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			switch e.Name.Local {
			case "svg":
				d.w, d.h = num(e.Attr, "width"), num(e.Attr, "height")
			case "g":
				group, first = e.Attr[0].Value, true
			case "rect":
				if group != "" {
					rect = [4]float64{num(e.Attr, "x"), num(e.Attr, "y"), num(e.Attr, "width"), num(e.Attr, "height")}
				}
			case "polyline":
				var pts []float64
				for _, a := range e.Attr {
					if a.Name.Local != "points" {
						continue
					}
					for _, xy := range strings.Fields(a.Value) {
						for _, v := range strings.Split(xy, ",") {
							f, err := strconv.ParseFloat(v, 64)
							if err != nil {
								t.Fatalf("points %q: %v", a.Value, err)
							}
							pts = append(pts, f)
						}
					}
				}
				if len(pts) < 4 {
					t.Fatalf("polyline of %d coordinates", len(pts))
				}
				d.lines = append(d.lines, [4]float64{pts[0], pts[1], pts[len(pts)-2], pts[len(pts)-1]})
				d.polys = append(d.polys, pts)
			case "text":
				var s string
				if err := dec.DecodeElement(&s, &e); err != nil {
					t.Fatal(err)
				}
				d.texts = append(d.texts, s)
				switch {
				case group == "nested":
					d.frames = append(d.frames, s)
				case group == "node" && first:
					d.boxes[strings.Fields(s)[0]] = rect
					first = false
				}
			}
		case xml.EndElement:
			if e.Name.Local == "g" {
				group = ""
			}
		}
	}
	return d
}

// edgesOf names each arrow by the boxes whose bottom middle it starts at
// and whose top middle it ends at.
func edgesOf(t *testing.T, d svgDrawing) []string {
	t.Helper()
	near := func(x, y float64, top bool) string {
		for name, r := range d.boxes {
			yy := r[1] + r[3]
			if top {
				yy = r[1]
			}
			if math.Abs(x-(r[0]+r[2]/2)) < 0.02 && math.Abs(y-yy) < 0.02 {
				return name
			}
		}
		t.Fatalf("an arrow end (%v, %v) touches no box", x, y)
		return ""
	}
	var out []string
	for _, l := range d.lines {
		out = append(out, near(l[0], l[1], false)+"->"+near(l[2], l[3], true))
	}
	sort.Strings(out)
	return out
}

func TestPlotModelSVG(t *testing.T) {
	m, tower := branchModel(t)
	for _, c := range []struct {
		expand bool
		boxes  []string
		edges  []string
	}{
		{false, []string{"in", "a", "b", "c", "cat", "out", tower, "final"},
			[]string{"a->b", "b->cat", "c->cat", "cat->out", "in->a", "in->c", "out->" + tower, tower + "->final"}},
		{true, []string{"in", "a", "b", "c", "cat", "out", "t1", "t2", "final"},
			[]string{"a->b", "b->cat", "c->cat", "cat->out", "in->a", "in->c", "out->t1", "t1->t2", "t2->final"}},
	} {
		path := filepath.Join(t.TempDir(), "model.svg")
		if err := utils.PlotModel(m, path, utils.PlotOptions{ShowShapes: true, ShowDtype: true, ShowTrainable: true, ShowLayerActivations: true, ExpandNested: c.expand}); err != nil {
			t.Fatal(err)
		}
		d := readSVG(t, path)
		var names []string
		for n := range d.boxes {
			names = append(names, n)
		}
		sort.Strings(names)
		want := append([]string(nil), c.boxes...)
		sort.Strings(want)
		if strings.Join(names, " ") != strings.Join(want, " ") {
			t.Errorf("expand %v: boxes %v, want %v", c.expand, names, want)
		}
		if got := edgesOf(t, d); strings.Join(got, " ") != strings.Join(c.edges, " ") {
			t.Errorf("expand %v: arrows %v, want %v", c.expand, got, c.edges)
		}
		all := strings.Join(d.texts, "\n")
		for _, w := range []string{"a (Dense)", "Output shape: (None, 5)", "Input shape: (None, 3), (None, 2)", "Output shape: (None, 5)", "Activation: relu", "Dtype: float32", "Trainable: True"} {
			if !strings.Contains(all, w) {
				t.Errorf("expand %v: no text %q in\n%s", c.expand, w, all)
			}
		}
		if c.expand && (len(d.frames) != 1 || d.frames[0] != tower) {
			t.Errorf("frames %v, want [%s]", d.frames, tower)
		}
		// Arrows go around boxes, not through them (a long arrow passes
		// the ranks between its ends beside their boxes).
		for _, p := range d.polys {
			for i := 0; i+3 < len(p); i += 2 {
				for k := 1; k < 20; k++ {
					f := float64(k) / 20
					x, y := p[i]+(p[i+2]-p[i])*f, p[i+1]+(p[i+3]-p[i+1])*f
					for name, r := range d.boxes {
						if x > r[0]+1 && x < r[0]+r[2]-1 && y > r[1]+1 && y < r[1]+r[3]-1 {
							t.Errorf("expand %v: arrow %v passes through box %s", c.expand, p, name)
						}
					}
				}
			}
		}
		// Boxes do not overlap.
		for n1, r1 := range d.boxes {
			for n2, r2 := range d.boxes {
				if n1 < n2 && r1[0] < r2[0]+r2[2] && r2[0] < r1[0]+r1[2] && r1[1] < r2[1]+r2[3] && r2[1] < r1[1]+r1[3] {
					t.Errorf("boxes %s %v and %s %v overlap", n1, r1, n2, r2)
				}
			}
		}
	}
}

// TestPlotModelPNG: the PNG decodes, with the SVG's size in points at
// the requested dpi.
func TestPlotModelPNG(t *testing.T) {
	m, _ := branchModel(t)
	dir := t.TempDir()
	opts := utils.PlotOptions{ShowShapes: true, RankDir: "LR", DPI: 96}
	if err := utils.PlotModel(m, filepath.Join(dir, "m.svg"), opts); err != nil {
		t.Fatal(err)
	}
	if err := utils.PlotModel(m, filepath.Join(dir, "m.png"), opts); err != nil {
		t.Fatal(err)
	}
	d := readSVG(t, filepath.Join(dir, "m.svg"))
	f, err := os.Open(filepath.Join(dir, "m.png"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	wantW, wantH := int(d.w/72*96+0.5), int(d.h/72*96+0.5)
	if b := img.Bounds(); b.Dx() != wantW || b.Dy() != wantH {
		t.Errorf("PNG is %dx%d, want %dx%d", b.Dx(), b.Dy(), wantW, wantH)
	}
	// Left to right: the input is left of the output.
	if d.boxes["in"][0] >= d.boxes["final"][0] {
		t.Errorf("LR: in at x %v, final at x %v", d.boxes["in"][0], d.boxes["final"][0])
	}
	// Not blank: some pixels are dark (box borders, text).
	dark := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if r, _, _, _ := img.At(x, y).RGBA(); r < 0x4000 {
				dark++
			}
		}
	}
	if dark < 100 {
		t.Errorf("%d dark pixels: the PNG is blank", dark)
	}
}

func TestPlotModelErrors(t *testing.T) {
	dir := t.TempDir()
	built := keras.MustSequential(layers.NewDense(2, layers.WithInputShape(3)))
	unbuilt := keras.MustSequential(layers.NewDense(2))
	for _, c := range []struct {
		name string
		m    *keras.Model
		path string
		opts utils.PlotOptions
		want string
	}{
		{"extension", built, filepath.Join(dir, "m.jpg"), utils.PlotOptions{}, ".png or .svg"},
		{"unbuilt", unbuilt, filepath.Join(dir, "m.svg"), utils.PlotOptions{}, "not built"},
		{"rankdir", built, filepath.Join(dir, "m.svg"), utils.PlotOptions{RankDir: "BT"}, "RankDir"},
		{"dpi", built, filepath.Join(dir, "m.png"), utils.PlotOptions{DPI: -3}, "DPI"},
		{"nil", nil, filepath.Join(dir, "m.svg"), utils.PlotOptions{}, "nil model"},
		{"no dir", built, filepath.Join(dir, "missing", "m.svg"), utils.PlotOptions{}, "missing"},
	} {
		err := utils.PlotModel(c.m, c.path, c.opts)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "utils: PlotModel: ") {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}
