package datasets

import (
	"archive/zip"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"strconv"
)

// maxSequenceMember bounds what one member of a text dataset's npz may
// decompress to: IMDB's largest is about 20 MB. A zip bomb stops here.
var maxSequenceMember int64 = 512 << 20

// maxSequenceExamples bounds the examples of an array (IMDB has 25,000
// per split, Reuters 11,228).
const maxSequenceExamples = 1 << 24

// readSequenceNPZ reads Keras' imdb.npz or reuters.npz: for each key of
// seqKeys a 1-D object array of integer lists (the word ids of each
// text), for each of labelKeys a 1-D integer array. Every array is
// checked against its header before it is returned.
func readSequenceNPZ(path string, seqKeys, labelKeys []string) (seqs map[string][][]int, labels map[string][]int, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("datasets: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, fmt.Errorf("datasets: %w", err)
	}
	zr, err := zip.NewReader(f, st.Size())
	if err != nil {
		return nil, nil, formatErrorf(path, "not a readable npz archive: %v", err)
	}
	seqs, labels = map[string][][]int{}, map[string][]int{}
	for _, key := range seqKeys {
		if seqs[key], err = readSequenceMember(zr, path, key); err != nil {
			return nil, nil, err
		}
	}
	for _, key := range labelKeys {
		if labels[key], err = readIntMember(zr, path, key); err != nil {
			return nil, nil, err
		}
	}
	return seqs, labels, nil
}

// openMember opens the npz member of array key ("key.npy", or "key") and
// reads its npy header.
func openMember(zr *zip.Reader, path, key string) (io.ReadCloser, npyHeader, error) {
	var zf *zip.File
	for _, name := range []string{key + ".npy", key} {
		for _, m := range zr.File {
			if m.Name == name && zf == nil {
				zf = m
			}
		}
	}
	if zf == nil {
		return nil, npyHeader{}, formatErrorf(path, "no array %q (has %s)", key, memberNames(zr))
	}
	rc, err := zf.Open()
	if err != nil {
		return nil, npyHeader{}, formatErrorf(path, "%s: %v", key, err)
	}
	hdr, err := readNPYHeader(rc)
	if err != nil {
		rc.Close()
		return nil, npyHeader{}, formatErrorf(path, "%s: %v", key, err)
	}
	if len(hdr.shape) != 1 {
		rc.Close()
		return nil, npyHeader{}, formatErrorf(path, "%s has shape %v, want (N,)", key, hdr.shape)
	}
	if hdr.shape[0] > maxSequenceExamples {
		rc.Close()
		return nil, npyHeader{}, formatErrorf(path, "%s has implausible shape %v (at most %d examples are read)", key, hdr.shape, maxSequenceExamples)
	}
	return rc, hdr, nil
}

// readRest reads what is left of a member, at most maxSequenceMember
// bytes, growing the buffer as data arrives.
func readRest(rc io.Reader, path, key string) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(rc, maxSequenceMember+1))
	if err != nil {
		return nil, formatErrorf(path, "%s: %v", key, err)
	}
	if int64(len(data)) > maxSequenceMember {
		return nil, formatErrorf(path, "%s holds more than %d bytes, more than any text dataset", key, maxSequenceMember)
	}
	return data, nil
}

// readSequenceMember reads a 1-D object array of integer lists.
func readSequenceMember(zr *zip.Reader, path, key string) ([][]int, error) {
	rc, hdr, err := openMember(zr, path, key)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	if hdr.descr != "|O" && hdr.descr != "O" {
		return nil, formatErrorf(path, "%s has dtype %s, want object (|O): lists of word ids", key, quote(hdr.descr))
	}
	data, err := readRest(rc, path, key)
	if err != nil {
		return nil, err
	}
	seqs, err := readSequencePickle(data, hdr.shape[0])
	if err != nil {
		return nil, formatErrorf(path, "%s: %v", key, err)
	}
	return seqs, nil
}

// readIntMember reads a 1-D array of integers (any size, either byte order).
func readIntMember(zr *zip.Reader, path, key string) ([]int, error) {
	rc, hdr, err := openMember(zr, path, key)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	d := hdr.descr
	if len(d) < 2 {
		return nil, formatErrorf(path, "%s has dtype %s, want integers", key, quote(d))
	}
	order := byte('<')
	if d[0] == '<' || d[0] == '>' || d[0] == '|' || d[0] == '=' {
		order, d = d[0], d[1:]
	}
	size, err := strconv.Atoi(d[1:])
	if (d[0] != 'i' && d[0] != 'u' && d[0] != 'b') || err != nil || (size != 1 && size != 2 && size != 4 && size != 8) {
		return nil, formatErrorf(path, "%s has dtype %s, want integers", key, quote(hdr.descr))
	}
	n := hdr.shape[0]
	data, err := readRest(rc, path, key)
	if err != nil {
		return nil, err
	}
	if len(data) != n*size {
		return nil, formatErrorf(path, "%s: %d bytes of data, its shape %v and dtype %s need %d", key, len(data), hdr.shape, quote(hdr.descr), n*size)
	}
	var bo binary.ByteOrder = binary.LittleEndian
	if order == '>' {
		bo = binary.BigEndian
	}
	out := make([]int, n)
	for i := range out {
		b := data[i*size : (i+1)*size]
		var u uint64
		switch size {
		case 1:
			u = uint64(b[0])
		case 2:
			u = uint64(bo.Uint16(b))
		case 4:
			u = uint64(bo.Uint32(b))
		case 8:
			u = bo.Uint64(b)
		}
		v := int64(u)
		if d[0] == 'i' && size < 8 && u&(1<<(8*size-1)) != 0 {
			v = int64(u) - 1<<(8*size)
		}
		if d[0] == 'u' && size == 8 && v < 0 {
			return nil, formatErrorf(path, "%s[%d] = %d is too large", key, i, u)
		}
		out[i] = int(v)
	}
	return out, nil
}
