package utils

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"
)

// MaxImagePixels bounds the pixels of an image the readers decode (width
// times height): 2**27, about 134 million, 512 MiB as RGBA. It is about
// PIL's own refusal threshold (twice its MAX_IMAGE_PIXELS of 89 million), and
// it keeps a small file whose header announces an enormous image from
// allocating what its bytes could never hold.
const MaxImagePixels = 1 << 27

// maxPixelsPerByte bounds the pixels a compressed image may announce per
// byte of its file: deflate expands at most 1032:1 (a 1-bit PNG row packs 8
// pixels per byte) and a JPEG block of 64 pixels costs at least a few bits.
const maxPixelsPerByte = 1 << 14

// ErrImageFormat is matched (with errors.Is) by the errors of the image
// readers about bytes that are not an image they read, or an image they
// cannot give in the requested channels.
var ErrImageFormat = errors.New("utils: unsupported or malformed image")

// pixels is a decoded image: h rows of w pixels of c channels (1, 3 or 4),
// row-major uint8 samples.
type pixels struct {
	h, w, c int
	pix     []uint8
}

func newPixels(h, w, c int) pixels {
	return pixels{h: h, w: w, c: c, pix: make([]uint8, h*w*c)}
}

// imageKind names the format of data by its first bytes, as
// tf.io.decode_image does ("" if none of the four).
func imageKind(data []byte) string {
	switch {
	case bytes.HasPrefix(data, []byte("\xff\xd8\xff")):
		return "jpeg"
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		return "png"
	case bytes.HasPrefix(data, []byte("GIF87a")), bytes.HasPrefix(data, []byte("GIF89a")):
		return "gif"
	case bytes.HasPrefix(data, []byte("BM")):
		return "bmp"
	}
	return ""
}

func formatErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrImageFormat, fmt.Sprintf(format, args...))
}

// checkSize refuses an image whose announced size its bytes cannot pay for.
func checkSize(kind string, w, h, n int) error {
	switch {
	case w <= 0 || h <= 0:
		return formatErr("%s of %dx%d pixels", kind, w, h)
	case w > MaxImagePixels/h:
		return formatErr("%s of %dx%d pixels, more than MaxImagePixels (%d)", kind, w, h, MaxImagePixels)
	case w*h/maxPixelsPerByte > n:
		return formatErr("%s announces %dx%d pixels in a file of %d bytes, more than it can hold", kind, w, h, n)
	}
	return nil
}

// decodeTF decodes data as tf.io.decode_image(data, channels=channels,
// expand_animations=False) does, which image_dataset_from_directory calls:
// the format is told by the bytes (JPEG, PNG, GIF or BMP), channels 0 keeps
// the file's own (1 or 3 for JPEG and 8-bit BMP, 3 for GIF, 1 to 4 for PNG),
// and the conversions are TensorFlow's: libpng's RGB to gray (in linear light
// for a PNG that declares a gamma), libjpeg's luma for gray JPEG output and
// its fancy upsampling of chroma, alpha dropped or set to 255, 16-bit
// samples shifted to 8. Like TensorFlow it refuses 1 channel from a BMP or a
// GIF, and 4 from a JPEG or a GIF.
func decodeTF(data []byte, channels int) (pixels, error) {
	if channels != 0 && channels != 1 && channels != 3 && channels != 4 {
		return pixels{}, fmt.Errorf("utils: channels %d, want 0, 1, 3 or 4", channels)
	}
	switch kind := imageKind(data); kind {
	case "jpeg":
		if channels == 4 {
			return pixels{}, formatErr("a JPEG has no alpha channel: TensorFlow decodes it with 1 or 3 channels, not 4 (color_mode \"rgba\")")
		}
		cfg, err := jpeg.DecodeConfig(bytes.NewReader(data))
		if err != nil {
			return pixels{}, formatErr("JPEG: %v", err)
		}
		if err := checkSize("JPEG", cfg.Width, cfg.Height, len(data)); err != nil {
			return pixels{}, err
		}
		img, err := jpeg.Decode(bytes.NewReader(data))
		if err != nil {
			return pixels{}, formatErr("JPEG: %v", err)
		}
		return jpegPixels(img, channels)
	case "png":
		cfg, err := png.DecodeConfig(bytes.NewReader(data))
		if err != nil {
			return pixels{}, formatErr("PNG: %v", err)
		}
		if err := checkSize("PNG", cfg.Width, cfg.Height, len(data)); err != nil {
			return pixels{}, err
		}
		img, err := png.Decode(bytes.NewReader(data))
		if err != nil {
			return pixels{}, formatErr("PNG: %v", err)
		}
		return pngPixels(img, channels, pngGamma(data))
	case "gif":
		if channels == 1 || channels == 4 {
			return pixels{}, formatErr("TensorFlow decodes a GIF with 3 channels only, not %d (color_mode \"grayscale\" or \"rgba\")", channels)
		}
		return decodeGIF(data)
	case "bmp":
		if channels == 1 {
			return pixels{}, formatErr("TensorFlow decodes a BMP with 3 or 4 channels, not 1 (color_mode \"grayscale\")")
		}
		return decodeBMP(data, channels)
	}
	return pixels{}, formatErr("not a JPEG, PNG, GIF or BMP file (it starts with %q)", data[:min(len(data), 8)])
}

// decodeGIF returns the first frame of a GIF on its logical screen, as
// TensorFlow's decode_gif: pixels outside the frame and transparent ones are
// black.
func decodeGIF(data []byte) (pixels, error) {
	cfg, err := gif.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return pixels{}, formatErr("GIF: %v", err)
	}
	if err := checkSize("GIF", cfg.Width, cfg.Height, len(data)); err != nil {
		return pixels{}, err
	}
	img, err := gif.Decode(bytes.NewReader(data))
	if err != nil {
		return pixels{}, formatErr("GIF: %v", err)
	}
	pal, ok := img.(*image.Paletted)
	if !ok {
		return pixels{}, formatErr("GIF: decoded as %T", img)
	}
	out := newPixels(cfg.Height, cfg.Width, 3)
	r := pal.Rect.Intersect(image.Rect(0, 0, cfg.Width, cfg.Height))
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			c := pal.Palette[pal.ColorIndexAt(x, y)]
			rr, gg, bb, a := c.RGBA()
			if a == 0 {
				continue // transparent: 0, as for TensorFlow's first frame
			}
			o := (y*cfg.Width + x) * 3
			out.pix[o], out.pix[o+1], out.pix[o+2] = uint8(rr>>8), uint8(gg>>8), uint8(bb>>8)
		}
	}
	return out, nil
}
