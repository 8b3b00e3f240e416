package utils

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"gorgonia.org/tensor"
)

// SaveImgConfig is save_img's keyword arguments.
type SaveImgConfig struct {
	DataFormat string // "channels_last" (default) or "channels_first"
	// FileFormat is "png", "jpeg" (or "jpg"), "bmp" or "gif"; "" takes
	// it from the file name's extension.
	FileFormat string
	NoScale    bool // Keras' scale=False, as ArrayToImgConfig.NoScale
	// Quality is the JPEG quality, 1 to 100; 0 is PIL's default, 75.
	Quality int
}

// SaveImg is keras.utils.save_img: it writes x (see [ArrayToImg]) to path
// as a PNG, JPEG, BMP or GIF file. As in Keras an RGBA image saved as JPEG
// loses its alpha; a GIF is quantized to Go's Plan 9 palette, not PIL's
// adaptive one. The file is written to a temporary name beside path and
// renamed, so a failed save leaves no partial file.
func SaveImg(path string, x *tensor.Dense, cfg SaveImgConfig) (err error) {
	const what = "utils: SaveImg"
	format := strings.ToLower(cfg.FileFormat)
	if format == "" {
		format = strings.TrimPrefix(strings.ToLower(filepath.Ext(path)), ".")
	}
	if format == "jpg" {
		format = "jpeg"
	}
	switch format {
	case "png", "jpeg", "bmp", "gif":
	default:
		return fmt.Errorf("%s: %s: file format %q, want png, jpeg, bmp or gif", what, path, format)
	}
	if cfg.Quality < 0 || cfg.Quality > 100 {
		return fmt.Errorf("%s: Quality %d, want 1 to 100 (0: 75)", what, cfg.Quality)
	}
	img, err := ArrayToImg(x, ArrayToImgConfig{DataFormat: cfg.DataFormat, NoScale: cfg.NoScale})
	if err != nil {
		return fmt.Errorf("%s: %s: %w", what, path, err)
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.part")
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	w := bufio.NewWriter(f)
	if err = encodeImage(w, img, format, cfg.Quality); err == nil {
		err = w.Flush()
	}
	if err == nil {
		err = f.Close()
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("%s: %s: %w", what, path, err)
	}
	return nil
}

func encodeImage(w io.Writer, img image.Image, format string, quality int) error {
	switch format {
	case "png":
		return png.Encode(w, img)
	case "jpeg":
		if quality == 0 {
			quality = 75
		}
		if n, ok := img.(*image.NRGBA); ok { // RGBA to RGB, as Keras converts
			rgb := image.NewRGBA(n.Rect)
			for i := 0; i < len(n.Pix); i += 4 {
				copy(rgb.Pix[i:i+3], n.Pix[i:i+3])
				rgb.Pix[i+3] = 255
			}
			img = rgb
		}
		return jpeg.Encode(w, img, &jpeg.Options{Quality: quality})
	case "gif":
		return gif.Encode(w, img, nil)
	}
	return encodeBMP(w, img)
}

// encodeBMP writes an uncompressed BMP as PIL saves one: 8-bit gray with a
// gray palette, 24-bit RGB, or 32-bit BGRA for an NRGBA image.
func encodeBMP(w io.Writer, img image.Image) error {
	b := img.Bounds()
	width, height := b.Dx(), b.Dy()
	bpp, palette := 24, 0
	switch img.(type) {
	case *image.Gray, *image.Gray16:
		bpp, palette = 8, 256
	case *image.NRGBA:
		bpp = 32
	}
	row := (bpp*width + 31) / 32 * 4
	offset := 14 + 40 + 4*palette
	size := offset + row*height
	if int64(row)*int64(height) > math.MaxInt32 {
		return fmt.Errorf("an image of %dx%d pixels is too large for a BMP", width, height)
	}
	hdr := make([]byte, offset)
	copy(hdr, "BM")
	le := binary.LittleEndian
	le.PutUint32(hdr[2:], uint32(size))
	le.PutUint32(hdr[10:], uint32(offset))
	le.PutUint32(hdr[14:], 40)
	le.PutUint32(hdr[18:], uint32(width))
	le.PutUint32(hdr[22:], uint32(height))
	le.PutUint16(hdr[26:], 1)
	le.PutUint16(hdr[28:], uint16(bpp))
	le.PutUint32(hdr[34:], uint32(row*height))
	le.PutUint32(hdr[38:], 2835)
	le.PutUint32(hdr[42:], 2835)
	le.PutUint32(hdr[46:], uint32(palette))
	for i := range palette {
		hdr[54+4*i], hdr[55+4*i], hdr[56+4*i] = uint8(i), uint8(i), uint8(i)
	}
	if _, err := w.Write(hdr); err != nil {
		return err
	}
	line := make([]byte, row)
	for y := height - 1; y >= 0; y-- {
		for x := range width {
			c := color.NRGBAModel.Convert(img.At(b.Min.X+x, b.Min.Y+y)).(color.NRGBA)
			switch bpp {
			case 8:
				line[x] = color.GrayModel.Convert(img.At(b.Min.X+x, b.Min.Y+y)).(color.Gray).Y
			case 24:
				line[3*x], line[3*x+1], line[3*x+2] = c.B, c.G, c.R
			case 32:
				line[4*x], line[4*x+1], line[4*x+2], line[4*x+3] = c.B, c.G, c.R, c.A
			}
		}
		if _, err := w.Write(line); err != nil {
			return err
		}
	}
	return nil
}
