package utils

import (
	"encoding/binary"
	"image"
	"image/color"
	"math"
)

// libpng's rgb_to_gray coefficients for the (0.299, 0.587) TensorFlow
// asks for, in units of 1/32768: png_set_rgb_to_gray_fixed truncates
// 29900*32768/100000 and 58700*32768/100000, and blue takes the rest.
const (
	pngGrayR = 9797
	pngGrayG = 19234
	pngGrayB = 32768 - pngGrayR - pngGrayG
)

// pngGamma returns the gamma a PNG declares, in libpng's units of 1/100000:
// 45455 for an sRGB chunk, the gAMA chunk's value otherwise, 100000 (linear,
// no correction) when it declares none. Only the chunks before the image
// data count, as for libpng.
func pngGamma(data []byte) int {
	gamma := 100000
	for p := 8; p+8 <= len(data); {
		n := int(binary.BigEndian.Uint32(data[p:]))
		typ := string(data[p+4 : p+8])
		if n < 0 || n > len(data)-p-12 || typ == "IDAT" {
			break
		}
		body := data[p+8 : p+8+n]
		switch {
		case typ == "sRGB":
			return 45455
		case typ == "gAMA" && n == 4:
			if g := int(binary.BigEndian.Uint32(body)); g > 0 {
				gamma = g
			}
		}
		p += 12 + n
	}
	return gamma
}

// gammaSignificant is libpng's png_gamma_significant: a gamma within 5% of
// 1 is no correction.
func gammaSignificant(g int) bool { return g < 95000 || g > 105000 }

// reciprocal is libpng's png_reciprocal in units of 1/100000.
func reciprocal(g int) int { return int(math.Floor(1e10/float64(g) + .5)) }

// gammaTable8 is libpng's png_build_8bit_table for the exponent g/100000.
func gammaTable8(g int) *[256]uint8 {
	var t [256]uint8
	for i := range t {
		t[i] = uint8(i)
		if gammaSignificant(g) && i > 0 && i < 255 {
			t[i] = uint8(math.Floor(255*math.Pow(float64(i)/255, float64(g)*1e-5) + .5))
		}
	}
	return &t
}

// grayConverter turns 8-bit RGB into gray as libpng's png_do_rgb_to_gray
// with TensorFlow's coefficients: directly, truncating, for a file without
// gamma; else through the file's gamma to linear light and back, rounding.
type grayConverter struct {
	toLinear, fromLinear *[256]uint8
}

func newGrayConverter(fileGamma int) grayConverter {
	if !gammaSignificant(fileGamma) {
		return grayConverter{}
	}
	screen := reciprocal(fileGamma)
	return grayConverter{toLinear: gammaTable8(reciprocal(fileGamma)), fromLinear: gammaTable8(reciprocal(screen))}
}

func (g grayConverter) gray8(r, gr, b uint8) uint8 {
	if r == gr && r == b {
		return r
	}
	if g.toLinear == nil {
		return uint8((pngGrayR*uint32(r) + pngGrayG*uint32(gr) + pngGrayB*uint32(b)) >> 15)
	}
	lr, lg, lb := uint32(g.toLinear[r]), uint32(g.toLinear[gr]), uint32(g.toLinear[b])
	return g.fromLinear[(pngGrayR*lr+pngGrayG*lg+pngGrayB*lb+16384)>>15]
}

// gray16 is the 16-bit conversion (without gamma: libpng's 16-bit gamma
// tables are not reproduced), then stripped to 8 bits as TensorFlow does.
func gray16(r, g, b uint16) uint8 {
	if r == g && r == b {
		return uint8(r >> 8)
	}
	return uint8(((pngGrayR*uint32(r) + pngGrayG*uint32(g) + pngGrayB*uint32(b) + 16384) >> 15) >> 8)
}

// pngPixels converts what image/png decoded into channels (1, 3 or 4) as
// TensorFlow's decode_png: gray replicated to RGB, RGB to gray by libpng's
// formula, alpha (a tRNS chunk's too) kept for 4 channels and dropped
// otherwise, 16-bit samples shifted right by 8.
func pngPixels(img image.Image, channels int, fileGamma int) (pixels, error) {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	out := newPixels(h, w, channels)
	conv := newGrayConverter(fileGamma)
	// at returns one pixel's non-premultiplied samples, 8-bit ones in the
	// low byte when deep is false.
	var at func(x, y int) (r, g, b, a uint16, deep bool)
	switch m := img.(type) {
	case *image.Gray:
		at = func(x, y int) (uint16, uint16, uint16, uint16, bool) {
			v := uint16(m.Pix[m.PixOffset(x, y)])
			return v, v, v, 255, false
		}
	case *image.Gray16:
		at = func(x, y int) (uint16, uint16, uint16, uint16, bool) {
			i := m.PixOffset(x, y)
			v := uint16(m.Pix[i])<<8 | uint16(m.Pix[i+1])
			return v, v, v, 0xffff, true
		}
	case *image.NRGBA:
		at = func(x, y int) (uint16, uint16, uint16, uint16, bool) {
			p := m.Pix[m.PixOffset(x, y):]
			return uint16(p[0]), uint16(p[1]), uint16(p[2]), uint16(p[3]), false
		}
	case *image.RGBA: // opaque truecolor: premultiplied and raw agree
		at = func(x, y int) (uint16, uint16, uint16, uint16, bool) {
			p := m.Pix[m.PixOffset(x, y):]
			return uint16(p[0]), uint16(p[1]), uint16(p[2]), uint16(p[3]), false
		}
	case *image.NRGBA64:
		at = func(x, y int) (uint16, uint16, uint16, uint16, bool) {
			p := m.Pix[m.PixOffset(x, y):]
			return uint16(p[0])<<8 | uint16(p[1]), uint16(p[2])<<8 | uint16(p[3]), uint16(p[4])<<8 | uint16(p[5]), uint16(p[6])<<8 | uint16(p[7]), true
		}
	case *image.RGBA64:
		at = func(x, y int) (uint16, uint16, uint16, uint16, bool) {
			p := m.Pix[m.PixOffset(x, y):]
			return uint16(p[0])<<8 | uint16(p[1]), uint16(p[2])<<8 | uint16(p[3]), uint16(p[4])<<8 | uint16(p[5]), uint16(p[6])<<8 | uint16(p[7]), true
		}
	case *image.Paletted:
		type entry struct{ r, g, b, a uint16 }
		pal := make([]entry, len(m.Palette))
		for i, c := range m.Palette {
			switch c := c.(type) {
			case color.NRGBA:
				pal[i] = entry{uint16(c.R), uint16(c.G), uint16(c.B), uint16(c.A)}
			default:
				n := color.NRGBAModel.Convert(c).(color.NRGBA)
				pal[i] = entry{uint16(n.R), uint16(n.G), uint16(n.B), uint16(n.A)}
			}
		}
		at = func(x, y int) (uint16, uint16, uint16, uint16, bool) {
			i := int(m.Pix[m.PixOffset(x, y)])
			if i >= len(pal) {
				return 0, 0, 0, 255, false
			}
			e := pal[i]
			return e.r, e.g, e.b, e.a, false
		}
	default:
		return pixels{}, formatErr("PNG decoded as %T, which is not handled", img)
	}
	o := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, a, deep := at(x, y)
			switch channels {
			case 1:
				if deep {
					out.pix[o] = gray16(r, g, bl)
				} else {
					out.pix[o] = conv.gray8(uint8(r), uint8(g), uint8(bl))
				}
			default:
				if deep {
					r, g, bl, a = r>>8, g>>8, bl>>8, a>>8
				}
				out.pix[o], out.pix[o+1], out.pix[o+2] = uint8(r), uint8(g), uint8(bl)
				if channels == 4 {
					out.pix[o+3] = uint8(a)
				}
			}
			o += channels
		}
	}
	return out, nil
}
