package datasets

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSearchOrderMNIST(t *testing.T) {
	// Put a different copy in every place; removing them one by one must
	// reveal the next place in the documented order.
	root := t.TempDir()
	dir := filepath.Join(root, "dir")
	env := filepath.Join(root, "env")
	cache := filepath.Join(root, "cache")
	fixed := filepath.Join(root, "fixed")
	copies := map[string]fakeData{}
	write := func(place string, offset byte, f func(fd fakeData)) {
		fd := newFakeData(1, 1, offset)
		copies[place] = fd
		f(fd)
	}
	write("dir", 1, func(fd fakeData) { fd.writeIDXDir(t, dir, true) })
	write("env", 2, func(fd fakeData) { fd.writeIDXDir(t, filepath.Join(env, "mnist"), false) })
	write("npz", 3, func(fd fakeData) { writeFile(t, filepath.Join(cache, "mnist.npz"), npzBytes(t, fd.npzMembers())) })
	write("cachedir", 4, func(fd fakeData) { fd.writeIDXDir(t, filepath.Join(cache, "mnist"), true) })
	write("fixed", 5, func(fd fakeData) { fd.writeIDXDir(t, fixed, true) })

	t.Setenv(EnvDataDir, env)
	opts := []LoadOption{Dir(dir), CacheDir(cache), withFixedDirs(fixed), NoDownload()}
	remove := map[string]string{
		"dir": dir, "env": env, "npz": filepath.Join(cache, "mnist.npz"),
		"cachedir": filepath.Join(cache, "mnist"), "fixed": fixed,
	}
	for _, place := range []string{"dir", "env", "npz", "cachedir", "fixed"} {
		train, test, err := LoadMNIST(opts...)
		if err != nil {
			t.Fatalf("expecting the %s copy: %v", place, err)
		}
		copies[place].check(t, train, test)
		os.RemoveAll(remove[place])
	}
	_, _, err := LoadMNIST(opts...)
	if !errors.Is(err, ErrNotFound) {
		t.Errorf("with every copy removed got %v, want ErrNotFound", err)
	}
}

func TestSearchOrderFashion(t *testing.T) {
	// Fashion-MNIST looks in the machine-wide folder before Keras' cache.
	root := t.TempDir()
	cache := filepath.Join(root, "cache")
	fixed := filepath.Join(root, "fixed")
	fc, ff := newFakeData(1, 1, 1), newFakeData(1, 1, 2)
	fc.writeIDXDir(t, filepath.Join(cache, "fashion-mnist"), true)
	ff.writeIDXDir(t, fixed, true)
	t.Setenv(EnvDataDir, "")
	opts := []LoadOption{CacheDir(cache), withFixedDirs(fixed), NoDownload()}
	train, test, err := LoadFashionMNIST(opts...)
	if err != nil {
		t.Fatal(err)
	}
	ff.check(t, train, test)
	os.RemoveAll(fixed)
	if train, test, err = LoadFashionMNIST(opts...); err != nil {
		t.Fatal(err)
	}
	fc.check(t, train, test)
}

func TestNotFoundListsEveryPlace(t *testing.T) {
	root := t.TempDir()
	partial := filepath.Join(root, "partial")
	newFakeData(1, 1, 0).writeIDXDir(t, partial, true)
	os.Remove(filepath.Join(partial, idxBaseNames[3]+".gz"))
	os.Remove(filepath.Join(partial, idxBaseNames[1]+".gz"))
	file := filepath.Join(root, "file")
	writeFile(t, file, []byte("x"))
	env := filepath.Join(root, "env")
	cache := filepath.Join(root, "cache")
	t.Setenv(EnvDataDir, env)

	empty := filepath.Join(root, "empty")
	os.Mkdir(empty, 0o755)
	_, _, err := LoadMNIST(Dir(partial), CacheDir(cache), withFixedDirs(file, empty), NoDownload())
	var nf *NotFoundError
	if !errors.Is(err, ErrNotFound) || !errors.As(err, &nf) {
		t.Fatalf("got %v, want a NotFoundError", err)
	}
	msg := err.Error()
	for _, want := range []string{
		"datasets: mnist not found",
		partial + ": incomplete: missing train-labels-idx1-ubyte[.gz], t10k-labels-idx1-ubyte[.gz]",
		filepath.Join(env, "mnist") + ": no such folder",
		filepath.Join(cache, "mnist.npz") + ": no such file",
		filepath.Join(cache, "mnist") + ": no such folder",
		file + ": not a folder",
		empty + ": neither mnist.npz nor the idx files",
		"download: disabled by the NoDownload option",
		"To get MNIST",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}
	if len(nf.Searched) != 6 {
		t.Errorf("searched %d places, want 6: %q", len(nf.Searched), nf.Searched)
	}

	_, _, err = LoadFashionMNIST(isolated(t)...)
	if !errors.Is(err, ErrNotFound) || !containsAll(err.Error(), "$GOKERAS_DATA_DIR: not set", "apt-get install dataset-fashion-mnist") {
		t.Errorf("got %v", err)
	}
}

func TestEmptyFolderReason(t *testing.T) {
	dir := t.TempDir()
	_, why, ok := mnistSpec.probeDir(dir)
	if ok || why != "neither mnist.npz nor the idx files (train-images-idx3-ubyte.gz, ...)" {
		t.Errorf("got %q, %v", why, ok)
	}
	_, why, ok = fashionSpec.probeDir(dir)
	if ok || why != "no idx files (train-images-idx3-ubyte.gz, ...)" {
		t.Errorf("got %q, %v", why, ok)
	}
}
