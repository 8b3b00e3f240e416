package utils

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
)

// pilImage is an image as PIL holds it for keras.utils.load_img: a mode
// ("L", "RGB", "RGBA" or "I;16") and its samples, bands interleaved.
type pilImage struct {
	mode  string
	w, h  int
	pix   []uint8  // L: 1 band, RGB: 3, RGBA: 4
	pix16 []uint16 // I;16
}

func (p *pilImage) bands() int {
	switch p.mode {
	case "RGB":
		return 3
	case "RGBA":
		return 4
	}
	return 1
}

func newPIL(mode string, w, h int) *pilImage {
	p := &pilImage{mode: mode, w: w, h: h}
	if mode == "I;16" {
		p.pix16 = make([]uint16, w*h)
	} else {
		p.pix = make([]uint8, w*h*p.bands())
	}
	return p
}

// pilL is PIL's RGB to L conversion (ITU-R 601-2 luma, 16-bit fixed point).
func pilL(r, g, b uint8) uint8 {
	return uint8((uint32(r)*19595 + uint32(g)*38470 + uint32(b)*7471 + 0x8000) >> 16)
}

// decodePIL decodes data as PIL.Image.open then load does, into the mode
// PIL gives it, up to the conversions that do not change what
// load_img returns: a palette image (PNG, GIF, BMP) is expanded to RGBA
// (its transparency as alpha), gray with alpha to RGBA, as PIL's P and LA
// convert to L, RGB and RGBA the same way.
func decodePIL(data []byte) (*pilImage, error) {
	var img image.Image
	var err error
	switch kind := imageKind(data); kind {
	case "jpeg", "png", "gif":
		var cfg image.Config
		switch kind {
		case "jpeg":
			cfg, err = jpeg.DecodeConfig(bytes.NewReader(data))
		case "png":
			cfg, err = png.DecodeConfig(bytes.NewReader(data))
		case "gif":
			cfg, err = gif.DecodeConfig(bytes.NewReader(data))
		}
		if err != nil {
			return nil, formatErr("%s: %v", kind, err)
		}
		if err := checkSize(kind, cfg.Width, cfg.Height, len(data)); err != nil {
			return nil, err
		}
		if img, _, err = image.Decode(bytes.NewReader(data)); err != nil {
			return nil, formatErr("%s: %v", kind, err)
		}
	case "bmp":
		return decodeBMPPIL(data)
	default:
		return nil, formatErr("not a JPEG, PNG, GIF or BMP file (it starts with %q)", data[:min(len(data), 8)])
	}
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	switch m := img.(type) {
	case *image.Gray:
		p := newPIL("L", w, h)
		for y := range h {
			copy(p.pix[y*w:(y+1)*w], m.Pix[y*m.Stride:])
		}
		return p, nil
	case *image.Gray16:
		p := newPIL("I;16", w, h)
		for y := range h {
			for x := range w {
				i := y*m.Stride + 2*x
				p.pix16[y*w+x] = uint16(m.Pix[i])<<8 | uint16(m.Pix[i+1])
			}
		}
		return p, nil
	case *image.YCbCr:
		px := ycbcrToRGB(m)
		return &pilImage{mode: "RGB", w: w, h: h, pix: px.pix}, nil
	case *image.RGBA: // PNG truecolor without tRNS, opaque
		p := newPIL("RGB", w, h)
		for y := range h {
			for x := range w {
				copy(p.pix[(y*w+x)*3:(y*w+x)*3+3], m.Pix[y*m.Stride+4*x:])
			}
		}
		return p, nil
	case *image.RGBA64:
		p := newPIL("RGB", w, h)
		for y := range h {
			for x := range w {
				for k := range 3 {
					p.pix[(y*w+x)*3+k] = m.Pix[y*m.Stride+8*x+2*k] // PIL keeps the high byte
				}
			}
		}
		return p, nil
	case *image.NRGBA:
		p := newPIL("RGBA", w, h)
		for y := range h {
			copy(p.pix[y*w*4:(y+1)*w*4], m.Pix[y*m.Stride:])
		}
		return p, nil
	case *image.NRGBA64:
		p := newPIL("RGBA", w, h)
		for y := range h {
			for x := range w {
				for k := range 4 {
					p.pix[(y*w+x)*4+k] = m.Pix[y*m.Stride+8*x+2*k]
				}
			}
		}
		return p, nil
	case *image.Paletted:
		p := newPIL("RGBA", w, h)
		pal := make([]color.NRGBA, len(m.Palette))
		for i, c := range m.Palette {
			if n, ok := c.(color.NRGBA); ok {
				pal[i] = n
			} else {
				pal[i] = color.NRGBAModel.Convert(c).(color.NRGBA)
			}
		}
		for y := range h {
			for x := range w {
				i := int(m.Pix[y*m.Stride+x])
				if i < len(pal) {
					c := pal[i]
					copy(p.pix[(y*w+x)*4:], []uint8{c.R, c.G, c.B, c.A})
				}
			}
		}
		return p, nil
	case *image.CMYK:
		// PIL's cmyk2rgb on the (not inverted) samples.
		p := newPIL("RGB", w, h)
		for y := range h {
			for x := range w {
				s := m.Pix[y*m.Stride+4*x:]
				nk := 255 - uint32(s[3])
				for k := range 3 {
					t := uint32(s[k])*nk + 128
					p.pix[(y*w+x)*3+k] = uint8(nk - ((t>>8)+t)>>8)
				}
			}
		}
		return p, nil
	}
	return nil, formatErr("decoded as %T, which is not handled", img)
}

// convert is PIL's Image.convert to L, RGB or RGBA as load_img calls it
// (I;16 counts as grayscale and is kept).
func (p *pilImage) convert(mode string) *pilImage {
	if p.mode == mode || (mode == "L" && p.mode == "I;16") {
		return p
	}
	out := newPIL(mode, p.w, p.h)
	nb, ob := p.bands(), out.bands()
	for i := range p.w * p.h {
		var r, g, b, a uint8 = 0, 0, 0, 255
		switch p.mode {
		case "I;16":
			v := uint8(255)
			if p.pix16[i] < 256 {
				v = uint8(p.pix16[i])
			}
			r, g, b = v, v, v
		case "L":
			r, g, b = p.pix[i], p.pix[i], p.pix[i]
		default:
			s := p.pix[i*nb:]
			r, g, b = s[0], s[1], s[2]
			if nb == 4 {
				a = s[3]
			}
		}
		d := out.pix[i*ob:]
		switch mode {
		case "L":
			d[0] = pilL(r, g, b)
		case "RGB":
			d[0], d[1], d[2] = r, g, b
		case "RGBA":
			d[0], d[1], d[2], d[3] = r, g, b, a
		}
	}
	return out
}

// image returns p as a Go image: L as *image.Gray, I;16 as *image.Gray16,
// RGB as an opaque *image.RGBA and RGBA as *image.NRGBA (not
// premultiplied, as PIL's).
func (p *pilImage) image() image.Image {
	r := image.Rect(0, 0, p.w, p.h)
	switch p.mode {
	case "L":
		return &image.Gray{Pix: p.pix, Stride: p.w, Rect: r}
	case "I;16":
		m := image.NewGray16(r)
		for i, v := range p.pix16 {
			binary.BigEndian.PutUint16(m.Pix[2*i:], v)
		}
		return m
	case "RGB":
		m := image.NewRGBA(r)
		for i := range p.w * p.h {
			copy(m.Pix[4*i:4*i+3], p.pix[3*i:])
			m.Pix[4*i+3] = 255
		}
		return m
	}
	return &image.NRGBA{Pix: p.pix, Stride: 4 * p.w, Rect: r}
}

// decodeBMPPIL reads a BMP as PIL's BmpImagePlugin: 24 and 32 bits per
// pixel (the fourth byte of a 32-bit BI_RGB pixel is padding to PIL, not
// alpha) as RGB, 1, 4 and 8 bits through the palette, bottom-up or top-down.
func decodeBMPPIL(data []byte) (*pilImage, error) {
	if len(data) < 54 {
		return nil, formatErr("BMP of %d bytes, shorter than its headers", len(data))
	}
	offset := int64(binary.LittleEndian.Uint32(data[10:]))
	hdrSize := int64(binary.LittleEndian.Uint32(data[14:]))
	width := int64(int32(binary.LittleEndian.Uint32(data[18:])))
	height := int64(int32(binary.LittleEndian.Uint32(data[22:])))
	bpp := int64(binary.LittleEndian.Uint16(data[28:]))
	compression := binary.LittleEndian.Uint32(data[30:])
	colors := int64(binary.LittleEndian.Uint32(data[46:]))
	topDown := height < 0
	if topDown {
		height = -height
	}
	if hdrSize < 40 || width <= 0 || height <= 0 || width > MaxImagePixels || height > MaxImagePixels/width {
		return nil, formatErr("BMP of %dx%d pixels with a header of %d bytes", width, height, hdrSize)
	}
	if compression != 0 {
		return nil, formatErr("BMP compression %d is not read (only uncompressed BI_RGB)", compression)
	}
	switch bpp {
	case 1, 4, 8, 24, 32:
	default:
		return nil, formatErr("BMP of %d bits per pixel; want 1, 4, 8, 24 or 32", bpp)
	}
	rowSize := (bpp*width + 31) / 32 * 4
	if offset < 14+hdrSize || offset+rowSize*height > int64(len(data)) {
		return nil, formatErr("BMP of %d bytes, but its header (data at %d, %d rows of %d bytes) needs %d", len(data), offset, height, rowSize, offset+rowSize*height)
	}
	w, h := int(width), int(height)
	var pal [][3]uint8
	if bpp <= 8 {
		n := int64(1) << bpp
		if colors > 0 && colors < n {
			n = colors
		}
		start := 14 + hdrSize
		if start+4*n > offset {
			return nil, formatErr("BMP palette of %d colors does not fit before the pixels at %d", n, offset)
		}
		for i := range n {
			e := data[start+4*i:]
			pal = append(pal, [3]uint8{e[2], e[1], e[0]})
		}
	}
	p := newPIL("RGB", w, h)
	for y := range h {
		row := y
		if !topDown {
			row = h - 1 - y
		}
		in := data[offset+int64(row)*rowSize:]
		for x := range w {
			d := p.pix[(y*w+x)*3:]
			switch bpp {
			case 24, 32:
				s := in[x*int(bpp/8):]
				d[0], d[1], d[2] = s[2], s[1], s[0]
			default:
				bit := x * int(bpp)
				i := int(in[bit/8]>>(8-int(bpp)-bit%8)) & (1<<bpp - 1)
				if i < len(pal) {
					d[0], d[1], d[2] = pal[i][0], pal[i][1], pal[i][2]
				}
			}
		}
	}
	return p, nil
}
