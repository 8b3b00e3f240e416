package utils

import "encoding/binary"

// decodeBMP reads a BMP as TensorFlow's decode_bmp does, which is not what
// golang.org/x/image/bmp does (it ignores the alpha of 32-bit BMPs with the
// common 40-byte header, which TensorFlow keeps): the pixel data starts at
// the offset in bytes 10-13, width and height are bytes 18-25 (a negative
// height is a top-down image), bits per pixel bytes 28-29 give 1, 3 or 4
// channels of raw samples (8-bit values are gray levels: TensorFlow ignores a
// palette), rows are padded to 4 bytes and the file must end with the last
// row. Samples are stored blue first. channels is 3 or 4.
func decodeBMP(data []byte, channels int) (pixels, error) {
	if len(data) < 54 {
		return pixels{}, formatErr("BMP of %d bytes, shorter than its headers", len(data))
	}
	offset := int64(binary.LittleEndian.Uint32(data[10:]))
	width := int64(int32(binary.LittleEndian.Uint32(data[18:])))
	height := int64(int32(binary.LittleEndian.Uint32(data[22:])))
	bpp := int64(binary.LittleEndian.Uint16(data[28:]))
	if width <= 0 {
		return pixels{}, formatErr("BMP width %d, want > 0", width)
	}
	topDown := height < 0
	if topDown {
		height = -height
	}
	src := int(bpp / 8)
	if bpp%8 != 0 || (src != 1 && src != 3 && src != 4) {
		return pixels{}, formatErr("BMP of %d bits per pixel; TensorFlow reads 8, 24 and 32", bpp)
	}
	if height == 0 || width > MaxImagePixels || height > MaxImagePixels/width {
		return pixels{}, formatErr("BMP of %dx%d pixels", width, height)
	}
	rowSize := (bpp*width + 31) / 32 * 4
	if offset < 14 || offset+rowSize*height != int64(len(data)) {
		return pixels{}, formatErr("BMP of %d bytes, but its header (data at %d, %d rows of %d bytes) needs %d", len(data), offset, height, rowSize, offset+rowSize*height)
	}
	w, h := int(width), int(height)
	out := newPixels(h, w, channels)
	for y := range h {
		row := y
		if !topDown {
			row = h - 1 - y
		}
		in := data[int(offset)+row*int(rowSize):]
		o := out.pix[y*w*channels:]
		for x := range w {
			p := in[x*src:]
			d := o[x*channels:]
			switch src {
			case 1:
				d[0], d[1], d[2] = p[0], p[0], p[0]
			default:
				d[0], d[1], d[2] = p[2], p[1], p[0]
			}
			if channels == 4 {
				d[3] = 255
				if src == 4 {
					d[3] = p[3]
				}
			}
		}
	}
	return out, nil
}
