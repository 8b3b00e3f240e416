package main

import (
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"

	"gorgonia.org/tensor"
)

// writeGrid writes one row of grey images per tensor of rows (each
// (n, h, w, 1) with values in [0, 1]), with a 2-pixel gap between images,
// as a PNG: keras.io's display() of noisy, denoised and clean images.
func writeGrid(path string, rows []*tensor.Dense) error {
	const gap = 2
	if len(rows) == 0 {
		return fmt.Errorf("no images")
	}
	s := rows[0].Shape()
	if len(s) != 4 || s[3] != 1 {
		return fmt.Errorf("images of shape %v: want (n, h, w, 1)", s)
	}
	n, h, w := s[0], s[1], s[2]
	img := image.NewGray(image.Rect(0, 0, n*(w+gap)+gap, len(rows)*(h+gap)+gap))
	for i := range img.Pix {
		img.Pix[i] = 255
	}
	for ri, t := range rows {
		if !t.Shape().Eq(s) {
			return fmt.Errorf("row %d has shape %v, row 0 %v", ri, t.Shape(), s)
		}
		d := t.Data().([]float32)
		for k := 0; k < n; k++ {
			for y := 0; y < h; y++ {
				for x := 0; x < w; x++ {
					v := float64(d[(k*h+y)*w+x])
					if math.IsNaN(v) {
						v = 0
					}
					img.SetGray(gap+k*(w+gap)+x, gap+ri*(h+gap)+y, color.Gray{Y: uint8(math.Round(255 * min(max(v, 0), 1)))})
				}
			}
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// bceOf is the mean binary crossentropy of predictions p for labels y,
// with Keras' clipping of p to [1e-7, 1-1e-7].
func bceOf(p, y *tensor.Dense) float64 {
	pd, yd := p.Data().([]float32), y.Data().([]float32)
	var s float64
	for i, pv := range pd {
		q := min(max(float64(pv), 1e-7), 1-1e-7)
		t := float64(yd[i])
		s -= t*math.Log(q) + (1-t)*math.Log(1-q)
	}
	return s / float64(max(len(pd), 1))
}
