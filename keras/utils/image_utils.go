package utils

import (
	"encoding/binary"
	"fmt"
	"image"
	"image/color"
	"io/fs"
	"os"

	"gorgonia.org/tensor"
)

// LoadImgConfig is load_img's keyword arguments. The zero value is
// Keras': RGB at the file's own size.
type LoadImgConfig struct {
	// FS, when set, is the file system path is read from (path is then
	// slash-separated in it); nil reads the OS's.
	FS fs.FS
	// ColorMode is "rgb" (the default), "grayscale" or "rgba".
	// Grayscale is Keras 2's grayscale=True, the same as "grayscale".
	ColorMode string
	Grayscale bool
	// TargetSize is the (height, width) to resize to; zero keeps the size.
	TargetSize [2]int
	// Interpolation is PIL's resampling filter for TargetSize: "nearest"
	// (the default), "bilinear", "bicubic", "lanczos", "box" or "hamming".
	Interpolation string
	// KeepAspectRatio resizes without distortion: the largest centered
	// window of the target's aspect ratio is resized.
	KeepAspectRatio bool
}

// LoadImg is keras.utils.load_img: it reads an image file (JPEG, PNG, GIF
// or BMP) as PIL does and returns it in the color mode asked for, resized
// to TargetSize with PIL's filters if it is not that size: an *image.Gray
// for "grayscale" (an *image.Gray16 for a 16-bit gray PNG, kept as PIL keeps
// its I;16 mode), an opaque *image.RGBA for "rgb" and an *image.NRGBA for
// "rgba". [ImgToArray] turns it into the (height, width, channels) float32
// array a model predicts on:
//
//	img = keras.utils.load_img(path, target_size=(180, 180))
//	x = keras.utils.img_to_array(img)
//
//	img, err := utils.LoadImg(path, utils.LoadImgConfig{TargetSize: [2]int{180, 180}})
//	x, err := utils.ImgToArray(img)
//
// The conversions are PIL's (L = (19595 R + 38470 G + 7471 B + 2^15) >> 16;
// RGBA resized premultiplied), not TensorFlow's as in
// [ImageDatasetFromDirectory], because Keras' load_img uses PIL. JPEG
// pixels may differ from PIL's by a level or two where Go's inverse DCT
// rounds otherwise; and a transparent GIF pixel is black, where PIL
// keeps its palette color.
func LoadImg(path string, cfg LoadImgConfig) (image.Image, error) {
	const what = "utils: LoadImg"
	mode := "RGB"
	switch cfg.ColorMode {
	case "", "rgb":
	case "grayscale":
		mode = "L"
	case "rgba":
		mode = "RGBA"
	default:
		return nil, fmt.Errorf("%s: ColorMode %q, want \"grayscale\", \"rgb\" or \"rgba\"", what, cfg.ColorMode)
	}
	if cfg.Grayscale {
		mode = "L"
	}
	var data []byte
	var err error
	if cfg.FS != nil {
		data, err = fs.ReadFile(cfg.FS, path)
	} else {
		data, err = os.ReadFile(path)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	p, err := decodePIL(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", what, path, err)
	}
	p = p.convert(mode)
	if ts := cfg.TargetSize; ts != [2]int{} {
		if ts[0] <= 0 || ts[1] <= 0 || ts[0] > MaxImagePixels/ts[1] {
			return nil, fmt.Errorf("%s: TargetSize %v, want two positive sizes", what, ts)
		}
		if p, err = p.resize(ts[0], ts[1], cfg.Interpolation, cfg.KeepAspectRatio); err != nil {
			return nil, fmt.Errorf("%s: %s: %w", what, path, err)
		}
	}
	return p.image(), nil
}

// resize is load_img's resizing: PIL's Image.resize to th×tw, of the
// centered crop box when keepAspect is set.
func (p *pilImage) resize(th, tw int, interpolation string, keepAspect bool) (*pilImage, error) {
	if p.w == tw && p.h == th {
		return p, nil
	}
	if interpolation == "" {
		interpolation = "nearest"
	}
	box := pilBox{0, 0, float64(p.w), float64(p.h)}
	if keepAspect {
		ch := min(p.h, p.w*th/tw)
		cw := min(p.w, p.h*tw/th)
		top, left := (p.h-ch)/2, (p.w-cw)/2
		box = pilBox{float64(left), float64(top), float64(left + cw), float64(top + ch)}
	}
	out := &pilImage{mode: p.mode, w: tw, h: th}
	if p.mode == "I;16" {
		if interpolation != "nearest" {
			return nil, fmt.Errorf("a 16-bit gray image is resized with \"nearest\" only, not %q", interpolation)
		}
		lo, hi := make([]uint8, len(p.pix16)), make([]uint8, len(p.pix16))
		for i, v := range p.pix16 {
			lo[i], hi[i] = uint8(v), uint8(v>>8)
		}
		l := pilNearest(lo, p.w, p.h, 1, tw, th, box)
		h := pilNearest(hi, p.w, p.h, 1, tw, th, box)
		out.pix16 = make([]uint16, tw*th)
		for i := range out.pix16 {
			out.pix16[i] = uint16(h[i])<<8 | uint16(l[i])
		}
		return out, nil
	}
	pix := p.pix
	premult := p.mode == "RGBA" && interpolation != "nearest"
	if premult {
		pix = premultiply(pix)
	}
	r, err := pilResize(pix, p.w, p.h, p.bands(), tw, th, interpolation, box)
	if err != nil {
		return nil, err
	}
	if premult {
		unpremultiply(r)
	}
	out.pix = r
	return out, nil
}

// ImgToArray is keras.utils.img_to_array: the image as a float32 tensor of
// shape (height, width, channels), or (channels, height, width) when
// dataFormat is "channels_first" (it is optional, Keras' data_format;
// default "channels_last"). An *image.Gray or *image.Gray16 has 1 channel
// (the latter's values up to 65535), an *image.NRGBA 4 and an *image.RGBA 3
// (it is what LoadImg returns for PIL's RGB: its alpha is dropped); other
// images with an opaque color model (YCbCr, CMYK) have 3, the others
// 4, through Go's color conversion.
func ImgToArray(img image.Image, dataFormat ...string) (*tensor.Dense, error) {
	const what = "utils: ImgToArray"
	first, err := channelsFirst(what, dataFormat)
	if err != nil {
		return nil, err
	}
	if img == nil {
		return nil, fmt.Errorf("%s: nil image", what)
	}
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	if w <= 0 || h <= 0 {
		return nil, fmt.Errorf("%s: an image of %dx%d pixels", what, w, h)
	}
	var c int
	var at func(x, y int, d []float32)
	switch m := img.(type) {
	case *image.Gray:
		c = 1
		at = func(x, y int, d []float32) { d[0] = float32(m.GrayAt(x, y).Y) }
	case *image.Gray16:
		c = 1
		at = func(x, y int, d []float32) { d[0] = float32(m.Gray16At(x, y).Y) }
	case *image.RGBA:
		c = 3
		at = func(x, y int, d []float32) {
			p := m.Pix[m.PixOffset(x, y):]
			d[0], d[1], d[2] = float32(p[0]), float32(p[1]), float32(p[2])
		}
	case *image.NRGBA:
		c = 4
		at = func(x, y int, d []float32) {
			p := m.Pix[m.PixOffset(x, y):]
			d[0], d[1], d[2], d[3] = float32(p[0]), float32(p[1]), float32(p[2]), float32(p[3])
		}
	default:
		c = 4
		if m := img.ColorModel(); m == color.YCbCrModel || m == color.CMYKModel {
			c = 3
		}
		at = func(x, y int, d []float32) {
			n := color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)
			d[0], d[1], d[2] = float32(n.R), float32(n.G), float32(n.B)
			if c == 4 {
				d[3] = float32(n.A)
			}
		}
	}
	out := make([]float32, h*w*c)
	px := make([]float32, c)
	for y := range h {
		for x := range w {
			at(b.Min.X+x, b.Min.Y+y, px)
			for k, v := range px {
				if first {
					out[(k*h+y)*w+x] = v
				} else {
					out[(y*w+x)*c+k] = v
				}
			}
		}
	}
	shape := []int{h, w, c}
	if first {
		shape = []int{c, h, w}
	}
	return tensor.New(tensor.WithShape(shape...), tensor.WithBacking(out)), nil
}

func channelsFirst(what string, dataFormat []string) (bool, error) {
	switch {
	case len(dataFormat) > 1:
		return false, fmt.Errorf("%s: %d data formats %q, want at most one", what, len(dataFormat), dataFormat)
	case len(dataFormat) == 0 || dataFormat[0] == "" || dataFormat[0] == "channels_last":
		return false, nil
	case dataFormat[0] == "channels_first":
		return true, nil
	}
	return false, fmt.Errorf("%s: data format %q, want \"channels_last\" or \"channels_first\"", what, dataFormat[0])
}

// ArrayToImgConfig is array_to_img's keyword arguments; the zero value is
// Keras' (channels last, scaled).
type ArrayToImgConfig struct {
	DataFormat string // "channels_last" (default) or "channels_first"
	// NoScale is Keras' scale=False: the values are taken as 0..255
	// levels. By default they are shifted and scaled so that the minimum
	// is 0 and the maximum 255.
	NoScale bool
}

// ArrayToImg is keras.utils.array_to_img: a (height, width, channels)
// array (of any numeric dtype, computed in float32 as Keras' floatx) as an
// image: 4 channels an *image.NRGBA, 3 an opaque *image.RGBA, 1 an
// *image.Gray (an *image.Gray16 when, unscaled, a value exceeds 255, where
// PIL makes a 32-bit "I" image). Values are truncated to integers as numpy's
// astype("uint8"); unscaled values outside 0..255 (0..65535) are an error.
func ArrayToImg(x *tensor.Dense, cfg ArrayToImgConfig) (image.Image, error) {
	const what = "utils: ArrayToImg"
	first, err := channelsFirst(what, []string{cfg.DataFormat})
	if err != nil {
		return nil, err
	}
	if x == nil {
		return nil, fmt.Errorf("%s: nil array", what)
	}
	if x.Dims() != 3 {
		return nil, fmt.Errorf("%s: an array of shape %v; want rank 3 (a single image)", what, x.Shape())
	}
	v, err := float32Values(x)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	h, w, c := x.Shape()[0], x.Shape()[1], x.Shape()[2]
	if first {
		c, h, w = x.Shape()[0], x.Shape()[1], x.Shape()[2]
	}
	if c != 1 && c != 3 && c != 4 {
		return nil, fmt.Errorf("%s: %d channels (shape %v); want 1, 3 or 4", what, c, x.Shape())
	}
	if h == 0 || w == 0 {
		return nil, fmt.Errorf("%s: an empty image, shape %v", what, x.Shape())
	}
	if first { // to channels last
		t := make([]float32, len(v))
		for k := range c {
			for i := range h * w {
				t[i*c+k] = v[k*h*w+i]
			}
		}
		v = t
	}
	if !cfg.NoScale {
		mn := v[0]
		for _, f := range v {
			mn = min(mn, f)
		}
		mx := float32(0)
		for i := range v {
			v[i] -= mn
			mx = max(mx, v[i])
		}
		for i := range v {
			if mx != 0 {
				v[i] /= mx
			}
			v[i] *= 255
		}
	}
	top := float32(255)
	if c == 1 {
		for _, f := range v {
			if f >= 256 {
				top = 65535
			}
		}
	}
	for _, f := range v {
		if !(f > -1 && f < top+1) {
			return nil, fmt.Errorf("%s: value %v is outside 0..%v (set NoScale only for arrays of levels)", what, f, top)
		}
	}
	r := image.Rect(0, 0, w, h)
	switch {
	case c == 4:
		m := image.NewNRGBA(r)
		for i, f := range v {
			m.Pix[i] = uint8(f)
		}
		return m, nil
	case c == 3:
		m := image.NewRGBA(r)
		for i := range h * w {
			m.Pix[4*i], m.Pix[4*i+1], m.Pix[4*i+2], m.Pix[4*i+3] = uint8(v[3*i]), uint8(v[3*i+1]), uint8(v[3*i+2]), 255
		}
		return m, nil
	case top > 255:
		m := image.NewGray16(r)
		for i, f := range v {
			binary.BigEndian.PutUint16(m.Pix[2*i:], uint16(f))
		}
		return m, nil
	}
	m := image.NewGray(r)
	for i, f := range v {
		m.Pix[i] = uint8(f)
	}
	return m, nil
}

// float32Values returns x's values as a new []float32.
func float32Values(x *tensor.Dense) ([]float32, error) {
	r, err := rowsOf(x)
	if err != nil {
		return nil, err
	}
	n := x.Shape().TotalSize()
	out := make([]float32, n)
	t := tensor.New(tensor.Of(r.dtype), tensor.WithShape(n))
	copy(t.Raw, r.raw)
	switch d := t.Data().(type) {
	case []float32:
		copy(out, d)
	case []float64:
		for i, f := range d {
			out[i] = float32(f)
		}
	case []uint8:
		for i, f := range d {
			out[i] = float32(f)
		}
	case []int32:
		for i, f := range d {
			out[i] = float32(f)
		}
	case []int64:
		for i, f := range d {
			out[i] = float32(f)
		}
	case []int:
		for i, f := range d {
			out[i] = float32(f)
		}
	default:
		return nil, fmt.Errorf("dtype %v is not supported", x.Dtype())
	}
	return out, nil
}
