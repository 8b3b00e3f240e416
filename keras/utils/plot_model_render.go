package utils

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"image/color"
	"io"
	"math"
	"strings"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/vgimg"
)

// Colors of the drawing.
var (
	plotBoxFill   = color.RGBA{0xe8, 0xf0, 0xfe, 0xff}
	plotStroke    = color.RGBA{0x33, 0x33, 0x33, 0xff}
	plotFrameLine = color.RGBA{0x88, 0x88, 0x88, 0xff}
)

// arrowHead returns the tip and the two back corners of the arrowhead
// at the end of polyline a, pointing along its last segment.
func arrowHead(a []float64) (tx, ty, lx, ly, rx, ry float64) {
	const length, half = 8, 3.5
	k := len(a)
	tx, ty = a[k-2], a[k-1]
	dx, dy := tx-a[k-4], ty-a[k-3]
	d := math.Hypot(dx, dy)
	if d == 0 {
		dx, dy, d = 0, 1, 1
	}
	ux, uy := dx/d, dy/d
	bx, by := tx-ux*length, ty-uy*length
	return tx, ty, bx - uy*half, by + ux*half, bx + uy*half, by - ux*half
}

// svgPoints formats a polyline's coordinates for a points attribute.
func svgPoints(a []float64) string {
	var b strings.Builder
	for i := 0; i+1 < len(a); i += 2 {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%.2f,%.2f", a[i], a[i+1])
	}
	return b.String()
}

// head is the arrowhead of polyline a as a triangle's corners.
func head(a []float64) []float64 {
	tx, ty, lx, ly, rx, ry := arrowHead(a)
	return []float64{tx, ty, lx, ly, rx, ry}
}

func svgColor(c color.RGBA) string { return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B) }

func xmlText(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s))
	return b.String()
}

// writeSVG writes the drawing as an SVG document, in points.
func writeSVG(w io.Writer, lay *plotLayout) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
	fmt.Fprintf(bw, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%gpt\" height=\"%gpt\" viewBox=\"0 0 %g %g\">\n", lay.w, lay.h, lay.w, lay.h)
	fmt.Fprintf(bw, "<rect x=\"0\" y=\"0\" width=\"%g\" height=\"%g\" fill=\"white\"/>\n", lay.w, lay.h)
	for _, f := range lay.frames {
		fmt.Fprintf(bw, "<g class=\"nested\"><rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"none\" stroke=\"%s\" stroke-dasharray=\"4,3\"/>", f.x, f.y, f.w, f.h, svgColor(plotFrameLine))
		fmt.Fprintf(bw, "<text x=\"%.2f\" y=\"%.2f\" font-family=\"Liberation Sans, Arial, sans-serif\" font-size=\"%d\" fill=\"%s\">%s</text></g>\n",
			f.x+4, f.y+plotLineH-2, plotFontSize, svgColor(plotFrameLine), xmlText(f.lines[0]))
	}
	for _, a := range lay.arrows {
		fmt.Fprintf(bw, "<g class=\"edge\"><polyline points=\"%s\" fill=\"none\" stroke=\"%s\"/>", svgPoints(a), svgColor(plotStroke))
		fmt.Fprintf(bw, "<polygon points=\"%s\" fill=\"%s\"/></g>\n", svgPoints(head(a)), svgColor(plotStroke))
	}
	for _, b := range lay.boxes {
		fmt.Fprintf(bw, "<g class=\"node\"><rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" rx=\"3\" fill=\"%s\" stroke=\"%s\"/>", b.x, b.y, b.w, b.h, svgColor(plotBoxFill), svgColor(plotStroke))
		for i, s := range b.lines {
			weight := ""
			if i == 0 {
				weight = " font-weight=\"bold\""
			}
			fmt.Fprintf(bw, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\" font-family=\"Liberation Sans, Arial, sans-serif\" font-size=\"%d\"%s>%s</text>",
				b.x+b.w/2, b.y+plotPadY+float64(i+1)*plotLineH-3, plotFontSize, weight, xmlText(s))
		}
		fmt.Fprintf(bw, "</g>\n")
	}
	fmt.Fprintf(bw, "</svg>\n")
	return bw.Flush()
}

// writePNG rasterizes the drawing at dpi with gonum/plot's image canvas
// (whose y axis grows upward).
func writePNG(w io.Writer, lay *plotLayout, dpi int) error {
	c := vgimg.NewWith(vgimg.UseWH(vg.Length(lay.w), vg.Length(lay.h)), vgimg.UseDPI(dpi))
	flip := func(x, y float64) vg.Point { return vg.Point{X: vg.Length(x), Y: vg.Length(lay.h - y)} }
	rect := func(b plotBox) vg.Path {
		var p vg.Path
		p.Move(flip(b.x, b.y))
		p.Line(flip(b.x+b.w, b.y))
		p.Line(flip(b.x+b.w, b.y+b.h))
		p.Line(flip(b.x, b.y+b.h))
		p.Close()
		return p
	}
	face := plotFace()
	c.SetLineWidth(0.8)
	for _, f := range lay.frames {
		c.SetColor(plotFrameLine)
		c.SetLineDash([]vg.Length{4, 3}, 0)
		c.Stroke(rect(f))
		c.SetLineDash(nil, 0)
		c.FillString(face, flip(f.x+4, f.y+plotLineH-2), f.lines[0])
	}
	c.SetColor(plotStroke)
	for _, a := range lay.arrows {
		var p vg.Path
		p.Move(flip(a[0], a[1]))
		for i := 2; i+1 < len(a); i += 2 {
			p.Line(flip(a[i], a[i+1]))
		}
		c.Stroke(p)
		h := head(a)
		var hp vg.Path
		hp.Move(flip(h[0], h[1]))
		hp.Line(flip(h[2], h[3]))
		hp.Line(flip(h[4], h[5]))
		hp.Close()
		c.Fill(hp)
	}
	for _, b := range lay.boxes {
		c.SetColor(plotBoxFill)
		c.Fill(rect(b))
		c.SetColor(plotStroke)
		c.Stroke(rect(b))
		for i, s := range b.lines {
			x := b.x + b.w/2 - float64(face.Width(s))/2
			c.FillString(face, flip(x, b.y+plotPadY+float64(i+1)*plotLineH-3), s)
		}
	}
	_, err := vgimg.PngCanvas{Canvas: c}.WriteTo(w)
	return err
}
