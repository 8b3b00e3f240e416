package keras

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// Plot draws the history as a PNG image at path (written atomically): one
// panel per metric ("loss", "accuracy", ...), each with the training curve
// and, when the history has it, the validation curve ("val_loss", ...)
// against the epoch (1-based), with a legend and labelled axes. Panels are
// laid out two per row. NaN and infinite values are left out of the curves.
func (h *History) Plot(path string) error {
	if err := h.plot(path); err != nil {
		return fmt.Errorf("keras: History.Plot %s: %w", path, err)
	}
	return nil
}

func (h *History) plot(path string) error {
	if h == nil || len(h.Names) == 0 || len(h.Epoch) == 0 {
		return errors.New("the history has no epochs")
	}
	// Panels in the order the names were first logged, val_ folded in.
	var metrics []string
	seen := map[string]bool{}
	for _, n := range h.Names {
		base := strings.TrimPrefix(n, "val_")
		if !seen[base] {
			seen[base] = true
			metrics = append(metrics, base)
		}
	}
	var panels []*plot.Plot
	for _, name := range metrics {
		p, err := h.panel(name)
		if err != nil {
			return err
		}
		panels = append(panels, p)
	}
	cols := min(len(panels), 2)
	rows := (len(panels) + cols - 1) / cols
	const panelW, panelH = 5.5 * vg.Inch, 3.8 * vg.Inch
	img := vgimg.NewWith(vgimg.UseWH(vg.Length(cols)*panelW, vg.Length(rows)*panelH), vgimg.UseDPI(100),
		vgimg.UseBackgroundColor(color.White))
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadTop: vg.Points(6), PadBottom: vg.Points(6),
		PadLeft: vg.Points(6), PadRight: vg.Points(12), PadX: vg.Points(24), PadY: vg.Points(18)}
	grid := make([][]*plot.Plot, rows)
	for r := range grid {
		grid[r] = make([]*plot.Plot, cols)
		for c := range grid[r] {
			if i := r*cols + c; i < len(panels) {
				grid[r][c] = panels[i]
			}
		}
	}
	canvases := plot.Align(grid, tiles, dc)
	for r := range grid {
		for c, p := range grid[r] {
			if p != nil {
				p.Draw(canvases[r][c])
			}
		}
	}
	return writeFileAtomic(path, func(w io.Writer) error {
		_, err := vgimg.PngCanvas{Canvas: img}.WriteTo(w)
		return err
	})
}

var (
	trainColor = color.RGBA{R: 31, G: 119, B: 180, A: 255} // matplotlib's C0 and C1
	valColor   = color.RGBA{R: 255, G: 127, B: 14, A: 255}
)

// panel draws name and val_name.
func (h *History) panel(name string) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = name
	p.X.Label.Text = "Epoch"
	p.Y.Label.Text = name
	p.X.Tick.Marker = integerTicks{}
	p.Add(plotter.NewGrid())
	drawn := 0
	lo, hi := math.Inf(1), math.Inf(-1)
	xlo, xhi := math.Inf(1), math.Inf(-1)
	rising := false
	for _, series := range []struct {
		key    string
		color  color.Color
		dashed bool
	}{{name, trainColor, false}, {"val_" + name, valColor, true}} {
		values, ok := h.History[series.key]
		if !ok {
			continue
		}
		var xys plotter.XYs
		for i, v := range values {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				continue
			}
			x := float64(i + 1)
			if i < len(h.Epoch) {
				x = float64(h.Epoch[i] + 1)
			}
			xys = append(xys, plotter.XY{X: x, Y: v})
		}
		if len(xys) == 0 {
			continue
		}
		for _, xy := range xys {
			lo, hi = min(lo, xy.Y), max(hi, xy.Y)
			xlo, xhi = min(xlo, xy.X), max(xhi, xy.X)
		}
		if drawn == 0 {
			rising = xys[len(xys)-1].Y > xys[0].Y
		}
		line, points, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", series.key, err)
		}
		line.Color, line.Width = series.color, vg.Points(1.5)
		if series.dashed {
			line.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		}
		points.Color, points.Shape, points.Radius = series.color, draw.CircleGlyph{}, vg.Points(2.2)
		p.Add(line, points)
		p.Legend.Add(series.key, line, points)
		drawn++
	}
	if drawn == 0 {
		p.Title.Text = name + " (no finite values)"
		return p, nil
	}
	// Some room around the curves, and the legend where a falling curve
	// (a loss) or a rising one (an accuracy) leaves space.
	pad := 0.06 * (hi - lo)
	if pad == 0 {
		pad = 0.5 * max(math.Abs(hi), 1e-3)
	}
	p.Y.Min, p.Y.Max = lo-pad, hi+pad
	p.X.Min, p.X.Max = xlo-0.4, xhi+0.4
	p.Legend.Top = !rising
	p.Legend.XOffs, p.Legend.YOffs = -vg.Points(8), vg.Points(8)
	if p.Legend.Top {
		p.Legend.YOffs = -vg.Points(8)
	}
	return p, nil
}

// integerTicks labels whole epochs only.
type integerTicks struct{}

func (integerTicks) Ticks(lo, hi float64) []plot.Tick {
	var out []plot.Tick
	for _, t := range (plot.DefaultTicks{}).Ticks(lo, hi) {
		if t.Value != math.Trunc(t.Value) {
			continue
		}
		if t.Label != "" {
			t.Label = strconv.FormatInt(int64(t.Value), 10)
		}
		out = append(out, t)
	}
	if len(out) == 0 {
		for v := math.Ceil(lo); v <= hi; v++ {
			out = append(out, plot.Tick{Value: v, Label: strconv.FormatInt(int64(v), 10)})
		}
	}
	return out
}
