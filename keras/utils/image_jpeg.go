package utils

import "image"

// jpegPixels converts what image/jpeg decoded into channels (1 or 3) as
// libjpeg-turbo gives them to TensorFlow: gray output is the luma plane
// itself, and color output upsamples the chroma planes with libjpeg's
// "fancy" triangle filter (TensorFlow's default fancy_upscaling) before
// libjpeg's fixed-point YCbCr to RGB conversion. Go's decoder rounds its
// inverse DCT differently from TensorFlow's (libjpeg's fast integer
// IDCT), so samples may still differ by a few levels; see the tests for
// the bound measured.
func jpegPixels(img image.Image, channels int) (pixels, error) {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	switch m := img.(type) {
	case *image.Gray:
		out := newPixels(h, w, channels)
		for y := range h {
			row := m.Pix[y*m.Stride : y*m.Stride+w]
			for x, v := range row {
				for k := range channels {
					out.pix[(y*w+x)*channels+k] = v
				}
			}
		}
		return out, nil
	case *image.YCbCr:
		if channels == 1 {
			out := newPixels(h, w, 1)
			for y := range h {
				copy(out.pix[y*w:(y+1)*w], m.Y[y*m.YStride:])
			}
			return out, nil
		}
		return ycbcrToRGB(m), nil
	case *image.CMYK:
		// TensorFlow turns libjpeg's CMYK output into RGB as
		// r = (255-k)*(255-c)/255 in Go's (not inverted) convention.
		out := newPixels(h, w, channels)
		for y := range h {
			for x := range w {
				p := m.Pix[y*m.Stride+4*x:]
				k := 255 - int(p[3])
				r, g, bl := k*(255-int(p[0]))/255, k*(255-int(p[1]))/255, k*(255-int(p[2]))/255
				o := (y*w + x) * channels
				if channels == 1 {
					out.pix[o] = uint8((19595*r + 38470*g + 7471*bl + 1<<15) >> 16)
					continue
				}
				out.pix[o], out.pix[o+1], out.pix[o+2] = uint8(r), uint8(g), uint8(bl)
			}
		}
		return out, nil
	case *image.RGBA: // an Adobe RGB (untransformed) JPEG
		out := newPixels(h, w, channels)
		for y := range h {
			for x := range w {
				p := m.Pix[y*m.Stride+4*x:]
				o := (y*w + x) * channels
				if channels == 1 {
					out.pix[o] = uint8((19595*int(p[0]) + 38470*int(p[1]) + 7471*int(p[2]) + 1<<15) >> 16)
					continue
				}
				out.pix[o], out.pix[o+1], out.pix[o+2] = p[0], p[1], p[2]
			}
		}
		return out, nil
	}
	return pixels{}, formatErr("JPEG decoded as %T, which is not handled", img)
}

// libjpeg's YCbCr to RGB tables (jdcolor.c's build_ycc_rgb_table), 16-bit
// fixed point: Cr->R and Cb->B rounded, the green terms summed and shifted
// with the rounding half folded into Cb->G.
var crR, cbB, crG, cbG [256]int32

func init() {
	const scale, half = 16, 1 << 15
	fix := func(x float64) int32 { return int32(x*(1<<scale) + 0.5) }
	for i := range 256 {
		x := int32(i - 128)
		crR[i] = (fix(1.40200)*x + half) >> scale
		cbB[i] = (fix(1.77200)*x + half) >> scale
		crG[i] = -fix(0.71414) * x
		cbG[i] = -fix(0.34414)*x + half
	}
}

func clamp8(v int32) uint8 {
	switch {
	case v < 0:
		return 0
	case v > 255:
		return 255
	}
	return uint8(v)
}

// ycbcrToRGB upsamples the chroma planes as libjpeg-turbo's fancy
// upsamplers (h2v1, h2v2, h1v2; replication for other ratios or planes of
// at most 2 columns) and converts to RGB.
func ycbcrToRGB(m *image.YCbCr) pixels {
	w, h := m.Rect.Dx(), m.Rect.Dy()
	cb := upsampleChroma(m.Cb, m.CStride, w, h, m.SubsampleRatio)
	cr := upsampleChroma(m.Cr, m.CStride, w, h, m.SubsampleRatio)
	out := newPixels(h, w, 3)
	for y := range h {
		for x := range w {
			yy := int32(m.Y[y*m.YStride+x])
			b, r := cb[y*w+x], cr[y*w+x]
			o := (y*w + x) * 3
			out.pix[o] = clamp8(yy + crR[r])
			out.pix[o+1] = clamp8(yy + (cbG[b]+crG[r])>>16)
			out.pix[o+2] = clamp8(yy + cbB[b])
		}
	}
	return out
}

// chromaFactors returns the horizontal and vertical subsampling of ratio.
func chromaFactors(r image.YCbCrSubsampleRatio) (hf, vf int) {
	switch r {
	case image.YCbCrSubsampleRatio422:
		return 2, 1
	case image.YCbCrSubsampleRatio420:
		return 2, 2
	case image.YCbCrSubsampleRatio440:
		return 1, 2
	case image.YCbCrSubsampleRatio411:
		return 4, 1
	case image.YCbCrSubsampleRatio410:
		return 4, 2
	}
	return 1, 1
}

// upsampleChroma returns a w*h plane from a chroma plane subsampled by
// ratio, with libjpeg-turbo's filters. The plane holds ceil(w/hf) columns
// and ceil(h/vf) rows; rows beyond the last are the last row again, as
// libjpeg's context rows at the image's edges.
func upsampleChroma(c []uint8, stride, w, h int, ratio image.YCbCrSubsampleRatio) []uint8 {
	hf, vf := chromaFactors(ratio)
	cw, ch := (w+hf-1)/hf, (h+vf-1)/vf
	at := func(x, y int) int32 {
		y = min(max(y, 0), ch-1)
		return int32(c[y*stride+x])
	}
	out := make([]uint8, w*h)
	fancyH := hf == 2 && cw > 2
	switch {
	case hf == 1 && vf == 1:
		for y := range h {
			copy(out[y*w:(y+1)*w], c[y*stride:])
		}
	case hf == 2 && vf == 1 && fancyH: // h2v1_fancy_upsample
		row := make([]uint8, 2*cw)
		for y := range h {
			h2v1(row, func(x int) int32 { return at(x, y) }, cw)
			copy(out[y*w:(y+1)*w], row)
		}
	case hf == 2 && vf == 2 && fancyH: // h2v2_fancy_upsample
		row := make([]uint8, 2*cw)
		for y := range h {
			in, v := y/2, y%2
			near := in - 1 // the row above for the upper output row
			if v == 1 {
				near = in + 1
			}
			sum := func(x int) int32 { return at(x, in)*3 + at(x, near) }
			// First column, then the inner ones, then the last.
			this, next := sum(0), sum(1)
			row[0] = uint8((this*4 + 8) >> 4)
			row[1] = uint8((this*3 + next + 7) >> 4)
			last := this
			this = next
			for x := 1; x < cw-1; x++ {
				next = sum(x + 1)
				row[2*x] = uint8((this*3 + last + 8) >> 4)
				row[2*x+1] = uint8((this*3 + next + 7) >> 4)
				last, this = this, next
			}
			row[2*cw-2] = uint8((this*3 + last + 8) >> 4)
			row[2*cw-1] = uint8((this*4 + 7) >> 4)
			copy(out[y*w:(y+1)*w], row)
		}
	case hf == 1 && vf == 2: // h1v2_fancy_upsample
		for y := range h {
			in, v := y/2, y%2
			near, bias := in-1, int32(1)
			if v == 1 {
				near, bias = in+1, 2
			}
			for x := range w {
				out[y*w+x] = uint8((at(x, in)*3 + at(x, near) + bias) >> 2)
			}
		}
	default: // int_upsample / h2v1 and h2v2 of narrow planes: replication
		for y := range h {
			for x := range w {
				out[y*w+x] = uint8(at(x/hf, y/vf))
			}
		}
	}
	return out
}

// h2v1 writes libjpeg-turbo's h2v1_fancy_upsample of one row of cw samples.
func h2v1(row []uint8, at func(int) int32, cw int) {
	v := at(0)
	row[0] = uint8(v)
	row[1] = uint8((v*3 + at(1) + 2) >> 2)
	for x := 1; x < cw-1; x++ {
		v = at(x) * 3
		row[2*x] = uint8((v + at(x-1) + 1) >> 2)
		row[2*x+1] = uint8((v + at(x+1) + 2) >> 2)
	}
	v = at(cw - 1)
	row[2*cw-2] = uint8((v*3 + at(cw-2) + 1) >> 2)
	row[2*cw-1] = uint8(v)
}
