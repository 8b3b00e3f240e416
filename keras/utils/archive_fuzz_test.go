package utils

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func fuzzTar(members ...tar.Header) []byte {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	tw := tar.NewWriter(zw)
	for _, h := range members {
		body := h.Name
		if h.Typeflag == tar.TypeReg {
			h.Size = int64(len(body))
		}
		tw.WriteHeader(&h)
		if h.Typeflag == tar.TypeReg {
			tw.Write([]byte(body))
		}
	}
	tw.Close()
	zw.Close()
	return b.Bytes()
}

// FuzzExtractArchive extracts arbitrary bytes as GetFile does and checks
// that nothing lands outside the extraction folder: the folder beside the
// archive holds only the archive and, on success, the folder, in which no
// link resolves outside it.
func FuzzExtractArchive(f *testing.F) {
	f.Add(fuzzTar(tar.Header{Name: "d/", Typeflag: tar.TypeDir, Mode: 0o755}, tar.Header{Name: "d/a.txt", Typeflag: tar.TypeReg, Mode: 0o644},
		tar.Header{Name: "d/l", Linkname: "a.txt", Typeflag: tar.TypeSymlink}, tar.Header{Name: "d/h", Linkname: "d/a.txt", Typeflag: tar.TypeLink}))
	f.Add(fuzzTar(tar.Header{Name: "y", Linkname: ".", Typeflag: tar.TypeSymlink}, tar.Header{Name: "x", Linkname: "y/..", Typeflag: tar.TypeSymlink}))
	f.Add(fuzzTar(tar.Header{Name: "../up", Typeflag: tar.TypeReg}))
	var z bytes.Buffer
	zw := zip.NewWriter(&z)
	w, _ := zw.Create("dir/f.txt")
	w.Write([]byte("zip"))
	zw.Close()
	f.Add(z.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		base := t.TempDir()
		file := filepath.Join(base, "archive")
		if err := os.WriteFile(file, data, 0o644); err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(base, "out")
		err := extractArchive(file, dir, []string{"tar", "zip"}, 1<<20)
		entries, _ := os.ReadDir(base)
		for _, e := range entries {
			if e.Name() != "archive" && (err != nil || e.Name() != "out") {
				t.Fatalf("extraction (error %v) left %s beside the archive", err, e.Name())
			}
		}
		if err != nil {
			return
		}
		realDir, _ := filepath.EvalSymlinks(dir)
		filepath.WalkDir(dir, func(p string, d os.DirEntry, werr error) error {
			if werr != nil || d.Type()&os.ModeSymlink == 0 {
				return nil
			}
			target, err := filepath.EvalSymlinks(p)
			if err != nil {
				return nil // dangling, inside
			}
			if target != realDir && !strings.HasPrefix(target, realDir+string(filepath.Separator)) {
				t.Errorf("link %s resolves to %s, outside %s", p, target, realDir)
			}
			return nil
		})
	})
}
