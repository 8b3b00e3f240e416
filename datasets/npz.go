package datasets

import (
	"fmt"
	"io"
	"slices"

	"github.com/sbinet/npyio/npy"
	"github.com/sbinet/npyio/npz"
	"gorgonia.org/tensor"
)

// readMNISTNPZ reads Keras' mnist.npz: uint8 arrays x_train (60000, 28, 28),
// y_train (60000,), x_test (10000, 28, 28) and y_test (10000,).
func readMNISTNPZ(path string) (train, test Pair, err error) {
	r, err := npz.Open(path)
	if err != nil {
		return Pair{}, Pair{}, formatErrorf(path, "not a readable npz archive: %v", err)
	}
	defer r.Close()

	read := func(key string, rank int) (*tensor.Dense, error) {
		shape, data, err := readNPZUint8(r, path, key)
		if err != nil {
			return nil, err
		}
		if len(shape) != rank || (rank == 3 && (shape[1] != 28 || shape[2] != 28)) {
			want := "(N,)"
			if rank == 3 {
				want = "(N, 28, 28)"
			}
			return nil, formatErrorf(path, "%s has shape %v, want %s", key, shape, want)
		}
		return tensor.New(tensor.WithShape(shape...), tensor.WithBacking(data)), nil
	}
	if train.X, err = read("x_train", 3); err != nil {
		return Pair{}, Pair{}, err
	}
	if train.Y, err = read("y_train", 1); err != nil {
		return Pair{}, Pair{}, err
	}
	if test.X, err = read("x_test", 3); err != nil {
		return Pair{}, Pair{}, err
	}
	if test.Y, err = read("y_test", 1); err != nil {
		return Pair{}, Pair{}, err
	}
	if err := checkPair(path+" (x_train, y_train)", train); err != nil {
		return Pair{}, Pair{}, err
	}
	if err := checkPair(path+" (x_test, y_test)", test); err != nil {
		return Pair{}, Pair{}, err
	}
	return train, test, nil
}

// readNPZUint8 reads one uint8 array from an npz archive. npyio parses the
// header, but the payload is read here in one io.ReadFull: npyio's own
// Read decodes a []uint8 one byte per call, which is slow for 47 MB.
func readNPZUint8(r *npz.Reader, path, key string) (shape []int, data []byte, err error) {
	// numpy.savez stores array "x" as member "x.npy"; accept both spellings.
	name := key + ".npy"
	if !slices.Contains(r.Keys(), name) {
		if !slices.Contains(r.Keys(), key) {
			return nil, nil, formatErrorf(path, "no array %q (has %v)", key, r.Keys())
		}
		name = key
	}
	rc, err := r.Open(name)
	if err != nil {
		return nil, nil, formatErrorf(path, "%s: %v", key, err)
	}
	defer rc.Close()

	hdr, err := npyHeader(rc)
	if err != nil {
		return nil, nil, formatErrorf(path, "%s: %v", key, err)
	}
	switch hdr.Descr.Type {
	case "|u1", "<u1", ">u1", "u1", "uint8":
	default:
		return nil, nil, formatErrorf(path, "%s has dtype %q, want uint8 (|u1)", key, hdr.Descr.Type)
	}
	if hdr.Descr.Fortran && len(hdr.Descr.Shape) > 1 {
		return nil, nil, formatErrorf(path, "%s is stored in Fortran order, which is not supported", key)
	}
	total := int64(1)
	for _, d := range hdr.Descr.Shape {
		if d < 0 {
			return nil, nil, formatErrorf(path, "%s has negative dimension in shape %v", key, hdr.Descr.Shape)
		}
		total *= int64(d)
		if total > maxIDXBytes {
			return nil, nil, formatErrorf(path, "%s has implausible shape %v", key, hdr.Descr.Shape)
		}
	}
	data, err = readExactly(rc, int(total))
	if err != nil {
		return nil, nil, readFailure(path, err, key+" data", int(total), len(data))
	}
	// Reading to the end makes the zip reader check the member's CRC.
	var one [1]byte
	switch n, err := io.ReadFull(rc, one[:]); {
	case n > 0:
		return nil, nil, formatErrorf(path, "%s holds more than the %d bytes its shape %v announces", key, total, hdr.Descr.Shape)
	case err != io.EOF:
		return nil, nil, formatErrorf(path, "%s: %v", key, err)
	}
	return slices.Clone(hdr.Descr.Shape), data, nil
}

// npyHeader parses an npy header with npyio. npyio slices its input without
// bounds checks in places, so a corrupt header could panic; the panic is
// turned into an error because a bad file must not crash the program.
func npyHeader(r io.Reader) (hdr npy.Header, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("corrupt npy header (%v)", p)
		}
	}()
	nr, err := npy.NewReader(r)
	if err != nil {
		return npy.Header{}, err
	}
	return nr.Header, nil
}

// checkPair checks that images and labels agree on the number of examples.
func checkPair(where string, p Pair) error {
	nx, ny := p.X.Shape()[0], p.Y.Shape()[0]
	if nx != ny {
		return fmt.Errorf("datasets: %s: %d images but %d labels: %w", where, nx, ny, ErrFormat)
	}
	return nil
}
