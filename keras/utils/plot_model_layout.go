package utils

import (
	"math"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
)

// Layout sizes, in points.
const (
	plotFontSize = 10
	plotLineH    = 13 // height of a line of text
	plotPadX     = 8  // text to box border, left and right
	plotPadY     = 5  // text to box border, top and bottom
	plotRankGap  = 40 // between ranks (rows, or columns for "LR")
	plotNodeGap  = 24 // between boxes of a rank
	plotMargin   = 12 // around the drawing
	plotFrameGap = 8  // a nested model's frame around its boxes
)

// plotFace is the font text is measured and drawn with (Liberation Sans,
// gonum/plot's default), so the SVG and the PNG have the same layout.
func plotFace() font.Face {
	return font.DefaultCache.Lookup(plot.DefaultFont, plotFontSize)
}

// plotLayout is a drawing: boxes, frames and arrows, y growing downward.
type plotLayout struct {
	w, h   float64
	boxes  []plotBox
	frames []plotBox
	arrows [][]float64 // polylines x0, y0, x1, y1, ... (the head at the end)
}

// plotBox is a rectangle with text lines (a frame has one, its label).
type plotBox struct {
	x, y, w, h float64
	lines      []string
}

// layout places the graph in ranks (the longest path from a source, as
// Graphviz's dot ranks), orders each rank by the mean position of its
// boxes' predecessors, and centers the ranks.
func (g *plotGraph) layout(leftToRight bool) *plotLayout {
	face := plotFace()
	n := len(g.nodes)
	boxes := make([]plotBox, n)
	for i, nd := range g.nodes {
		w := 0.0
		for _, s := range nd.lines {
			w = math.Max(w, float64(face.Width(s)))
		}
		boxes[i] = plotBox{w: math.Ceil(w) + 2*plotPadX, h: float64(len(nd.lines))*plotLineH + 2*plotPadY, lines: nd.lines}
	}
	// Nodes were added inputs first, so every edge goes forward.
	rank := make([]int, n)
	preds := make([][]int, n)
	for _, e := range g.edges {
		preds[e[1]] = append(preds[e[1]], e[0])
	}
	nRanks := 0
	for v := 0; v < n; v++ {
		for _, u := range preds[v] {
			rank[v] = max(rank[v], rank[u]+1)
		}
		nRanks = max(nRanks, rank[v]+1)
	}
	// An edge spanning several ranks passes through a thin virtual box
	// in each rank between (Sugiyama's dummy nodes), so it is routed
	// beside the boxes of those ranks instead of through them.
	chains := make([][]int, len(g.edges))
	all := append([]plotBox(nil), boxes...)
	vpreds := make([][]int, n)
	for i, e := range g.edges {
		prev := e[0]
		chain := []int{e[0]}
		for r := rank[e[0]] + 1; r < rank[e[1]]; r++ {
			d := len(all)
			all = append(all, plotBox{w: 2, h: 2})
			rank = append(rank, r)
			vpreds = append(vpreds, []int{prev})
			chain = append(chain, d)
			prev = d
		}
		vpreds[e[1]] = append(vpreds[e[1]], prev)
		chains[i] = append(chain, e[1])
	}
	ranks := make([][]int, nRanks)
	for v := range all {
		ranks[rank[v]] = append(ranks[rank[v]], v)
	}
	pos := make([]float64, len(all))
	for _, r := range ranks {
		for i, v := range r {
			pos[v] = float64(i)
		}
	}
	for _, r := range ranks[min(1, len(ranks)):] {
		key := make(map[int]float64, len(r))
		for _, v := range r {
			key[v] = pos[v]
			if len(vpreds[v]) > 0 {
				s := 0.0
				for _, u := range vpreds[v] {
					s += pos[u]
				}
				key[v] = s / float64(len(vpreds[v]))
			}
		}
		sort.SliceStable(r, func(i, j int) bool { return key[r[i]] < key[r[j]] })
		for i, v := range r {
			pos[v] = float64(i)
		}
	}
	// Along a rank (across for "TB": x) and between ranks (y).
	along := func(b plotBox) float64 { return b.w }
	across := func(b plotBox) float64 { return b.h }
	if leftToRight {
		along, across = across, along
	}
	extent := make([]float64, nRanks) // of each rank, along it
	depth := make([]float64, nRanks)  // of each rank, between ranks
	widest := 0.0
	for k, r := range ranks {
		for i, v := range r {
			if i > 0 {
				extent[k] += plotNodeGap
			}
			extent[k] += along(all[v])
			depth[k] = math.Max(depth[k], across(all[v]))
		}
		widest = math.Max(widest, extent[k])
	}
	offset := float64(plotMargin) + plotFrameGap + plotLineH
	start := make([]float64, nRanks) // where each rank begins, between ranks
	for k, r := range ranks {
		a := plotMargin + plotFrameGap + (widest-extent[k])/2
		start[k] = offset
		for _, v := range r {
			b := &all[v]
			if leftToRight {
				b.x, b.y = offset+(depth[k]-b.w)/2, a
			} else {
				b.x, b.y = a, offset+(depth[k]-b.h)/2
			}
			a += along(*b) + plotNodeGap
		}
		offset += depth[k] + plotRankGap
	}
	copy(boxes, all[:n])
	lay := &plotLayout{boxes: boxes}
	for _, chain := range chains {
		f, t := all[chain[0]], all[chain[len(chain)-1]]
		var pts []float64
		if leftToRight {
			pts = append(pts, f.x+f.w, f.y+f.h/2)
		} else {
			pts = append(pts, f.x+f.w/2, f.y+f.h)
		}
		for _, d := range chain[1 : len(chain)-1] {
			b := all[d]
			// Straight across the rank, so that the bends lie in the
			// gaps between ranks, where there are no boxes.
			k := rank[d]
			if leftToRight {
				pts = append(pts, start[k], b.y+b.h/2, start[k]+depth[k], b.y+b.h/2)
			} else {
				pts = append(pts, b.x+b.w/2, start[k], b.x+b.w/2, start[k]+depth[k])
			}
		}
		if leftToRight {
			pts = append(pts, t.x, t.y+t.h/2)
		} else {
			pts = append(pts, t.x+t.w/2, t.y)
		}
		lay.arrows = append(lay.arrows, pts)
	}
	lay.frames = g.frames(boxes)
	for _, b := range append(append([]plotBox{}, boxes...), lay.frames...) {
		lay.w = math.Max(lay.w, b.x+b.w)
		lay.h = math.Max(lay.h, b.y+b.h)
	}
	lay.w, lay.h = math.Ceil(lay.w+plotMargin), math.Ceil(lay.h+plotMargin)
	return lay
}

// frames returns the frame of each expanded nested model: around its
// boxes and its own nested frames, its name on top.
func (g *plotGraph) frames(boxes []plotBox) []plotBox {
	depth := func(c *plotCluster) int {
		d := 0
		for ; c != nil; c = c.parent {
			d++
		}
		return d
	}
	var out []plotBox
	for _, c := range g.clusters {
		x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
		for i, nd := range g.nodes {
			inside := false
			for p := nd.cluster; p != nil; p = p.parent {
				inside = inside || p == c
			}
			if !inside {
				continue
			}
			// Deeper frames are drawn around their boxes first; each
			// level out grows by the frame gap.
			pad := float64(plotFrameGap * (depth(nd.cluster) - depth(c) + 1))
			b := boxes[i]
			x0, y0 = math.Min(x0, b.x-pad), math.Min(y0, b.y-pad-plotLineH)
			x1, y1 = math.Max(x1, b.x+b.w+pad), math.Max(y1, b.y+b.h+pad)
		}
		if math.IsInf(x0, 1) {
			continue // an empty nested model
		}
		out = append(out, plotBox{x: math.Max(x0, 1), y: math.Max(y0, 1), w: x1 - math.Max(x0, 1), h: y1 - math.Max(y0, 1), lines: []string{c.name}})
	}
	return out
}
