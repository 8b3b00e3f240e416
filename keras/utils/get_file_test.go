package utils_test

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gokeras/gokeras/keras/utils"
)

// server serves files by name on loopback and counts the requests.
func server(t *testing.T, files map[string][]byte) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		b, ok := files[strings.TrimPrefix(r.URL.Path, "/")]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(b)
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

type member struct {
	name, body, link string
	typ              byte
}

func tarGz(t *testing.T, members ...member) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	tw := tar.NewWriter(zw)
	for _, m := range members {
		h := &tar.Header{Name: m.name, Mode: 0o644, Size: int64(len(m.body)), Typeflag: m.typ, Linkname: m.link}
		if m.typ == 0 {
			h.Typeflag = tar.TypeReg
		}
		if h.Typeflag != tar.TypeReg {
			h.Size = 0
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			tw.Write([]byte(m.body))
		}
	}
	tw.Close()
	zw.Close()
	return b.Bytes()
}

func zipBytes(t *testing.T, members ...member) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, m := range members {
		w, err := zw.Create(m.name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(m.body))
	}
	zw.Close()
	return b.Bytes()
}

func listTree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && p != dir {
			r, _ := filepath.Rel(dir, p)
			if d.IsDir() {
				r += "/"
			}
			out = append(out, filepath.ToSlash(r))
		}
		return nil
	})
	return out
}

func sum256(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

// GetFile downloads into CacheDir/datasets under fname (or the URL's last
// part), uses the cached copy afterwards, downloads again when the cached
// copy's hash is wrong or ForceDownload is set, and refuses a download
// whose hash is wrong, leaving nothing.
func TestGetFileCaches(t *testing.T) {
	body := []byte("x,y\n1,2\n")
	srv, hits := server(t, map[string][]byte{"files/data.csv": body})
	cache := t.TempDir()
	cfg := utils.GetFileConfig{CacheDir: cache, Quiet: true, FileHash: sum256(body)}
	p, err := utils.GetFile("", srv.URL+"/files/data.csv", cfg)
	if err != nil || p != filepath.Join(cache, "datasets", "data.csv") {
		t.Fatalf("%q %v", p, err)
	}
	if _, err := utils.GetFile("", srv.URL+"/files/data.csv", cfg); err != nil || hits.Load() != 1 {
		t.Fatalf("second call: %v, %d requests, want 1", err, hits.Load())
	}
	os.WriteFile(p, []byte("stale"), 0o644)
	if _, err := utils.GetFile("", srv.URL+"/files/data.csv", cfg); err != nil || hits.Load() != 2 {
		t.Fatalf("stale copy: %v, %d requests, want 2", err, hits.Load())
	}
	if b, _ := os.ReadFile(p); !bytes.Equal(b, body) {
		t.Errorf("cached %q", b)
	}
	cfg.ForceDownload = true
	if _, err := utils.GetFile("renamed.csv", srv.URL+"/files/data.csv", cfg); err != nil || hits.Load() != 3 {
		t.Fatalf("forced: %v, %d requests", err, hits.Load())
	}
	cfg.FileHash, cfg.CacheSubdir = strings.Repeat("0", 64), "other"
	if _, err := utils.GetFile("", srv.URL+"/files/data.csv", cfg); err == nil || !strings.Contains(err.Error(), "SHA-256 is "+sum256(body)) {
		t.Errorf("wrong hash: %v", err)
	}
	if got := listTree(t, filepath.Join(cache, "other")); len(got) != 0 {
		t.Errorf("a refused download left %v", got)
	}
	cfg.FileHash, cfg.HashAlgorithm = "0123", "md5"
	if _, err := utils.GetFile("x", srv.URL+"/files/data.csv", cfg); err == nil || !strings.Contains(err.Error(), "MD5 is") {
		t.Errorf("md5: %v", err)
	}
	if _, err := utils.GetFile("", srv.URL+"/missing", utils.GetFileConfig{CacheDir: cache, Quiet: true}); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("missing: %v", err)
	}
	for _, fname := range []string{"a/b", "../x"} {
		if _, err := utils.GetFile(fname, srv.URL+"/files/data.csv", utils.GetFileConfig{CacheDir: cache}); err == nil || !strings.Contains(err.Error(), "is a path") {
			t.Errorf("fname %q: %v", fname, err)
		}
	}
	if _, err := utils.GetFile("", srv.URL+"/", utils.GetFileConfig{CacheDir: cache}); err == nil || !strings.Contains(err.Error(), "give fname") {
		t.Errorf("no name: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := utils.GetFileContext(ctx, "c.csv", srv.URL+"/files/data.csv", utils.GetFileConfig{CacheDir: cache, Quiet: true}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// The cache is Keras': $KERAS_HOME/datasets, else ~/.keras/datasets.
func TestGetFileKerasHome(t *testing.T) {
	body := []byte("abc")
	srv, _ := server(t, map[string][]byte{"f.txt": body})
	home := t.TempDir()
	t.Setenv("KERAS_HOME", home)
	var out bytes.Buffer
	p, err := utils.GetFile("", srv.URL+"/f.txt", utils.GetFileConfig{Out: &out})
	if err != nil || p != filepath.Join(home, "datasets", "f.txt") {
		t.Fatalf("%q %v", p, err)
	}
	if want := "Downloading data from " + srv.URL + "/f.txt\n"; out.String() != want {
		t.Errorf("printed %q, want %q", out.String(), want)
	}
	t.Setenv("KERAS_HOME", "")
	t.Setenv("HOME", home)
	if p, err := utils.GetFile("", srv.URL+"/f.txt", utils.GetFileConfig{Quiet: true}); err != nil || p != filepath.Join(home, ".keras", "datasets", "f.txt") {
		t.Errorf("%q %v", p, err)
	}
}

// Extraction names the folders as Keras (fname with a dot: archive kept
// as fname, folder fname-before-the-dot_extracted; without: archive
// fname_archive, folder fname), extracts tar.gz and zip archives with
// their folders, links inside them, and does not extract again from the
// same archive.
func TestGetFileExtracts(t *testing.T) {
	tgz := tarGz(t,
		member{name: "flowers/", typ: tar.TypeDir},
		member{name: "flowers/roses/a.jpg", body: "rose"},
		member{name: "./flowers/tulips/b.jpg", body: "tulip"},
		member{name: "flowers/link.jpg", link: "roses/a.jpg", typ: tar.TypeSymlink},
		member{name: "flowers/hard.jpg", link: "flowers/roses/a.jpg", typ: tar.TypeLink},
	)
	zp := zipBytes(t, member{name: "data/"}, member{name: "data/x.txt", body: "x"})
	srv, hits := server(t, map[string][]byte{"flower_photos.tgz": tgz, "d.zip": zp})
	cache := t.TempDir()
	cfg := utils.GetFileConfig{CacheDir: cache, Quiet: true, Untar: true}
	p, err := utils.GetFile("flower_photos", srv.URL+"/flower_photos.tgz", cfg)
	if err != nil || p != filepath.Join(cache, "datasets", "flower_photos") {
		t.Fatalf("%q %v", p, err)
	}
	want := []string{"flowers/", "flowers/hard.jpg", "flowers/link.jpg", "flowers/roses/", "flowers/roses/a.jpg", "flowers/tulips/", "flowers/tulips/b.jpg"}
	if got := listTree(t, p); !slices.Equal(got, want) {
		t.Errorf("extracted %q, want %q", got, want)
	}
	if b, err := os.ReadFile(filepath.Join(p, "flowers/link.jpg")); err != nil || string(b) != "rose" {
		t.Errorf("link: %q %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(cache, "datasets", "flower_photos_archive")); err != nil {
		t.Error(err)
	}
	if _, err := utils.GetFile("flower_photos", srv.URL+"/flower_photos.tgz", cfg); err != nil || hits.Load() != 1 {
		t.Errorf("again: %v, %d requests", err, hits.Load())
	}
	p, err = utils.GetFile("d.zip", srv.URL+"/d.zip", utils.GetFileConfig{CacheDir: cache, Quiet: true, Extract: true})
	if err != nil || p != filepath.Join(cache, "datasets", "d_extracted") {
		t.Fatalf("%q %v", p, err)
	}
	if got := listTree(t, p); !slices.Equal(got, []string{"data/", "data/x.txt"}) {
		t.Errorf("zip extracted %q", got)
	}
	if _, err := utils.GetFile("", srv.URL+"/d.zip", utils.GetFileConfig{CacheDir: cache, Quiet: true, Untar: true}); err == nil || !strings.Contains(err.Error(), "zip archive, not one of") {
		t.Errorf("zip as tar: %v", err)
	}
}

// Members that would land outside the folder (absolute paths, "..", links
// out of it, directly or through another link, devices) fail the whole
// extraction, which leaves nothing in the cache but the archive and
// nothing outside it.
func TestGetFileRefusesUnsafeArchives(t *testing.T) {
	cases := map[string][]byte{
		"dotdot.tgz":   tarGz(t, member{name: "ok.txt", body: "ok"}, member{name: "../evil.txt", body: "x"}),
		"abs.tgz":      tarGz(t, member{name: "/tmp/evil.txt", body: "x"}),
		"link.tgz":     tarGz(t, member{name: "l", link: "../../etc", typ: tar.TypeSymlink}),
		"abslink.tgz":  tarGz(t, member{name: "l", link: "/etc/passwd", typ: tar.TypeSymlink}),
		"chain.tgz":    tarGz(t, member{name: "y", link: ".", typ: tar.TypeSymlink}, member{name: "x", link: "y/..", typ: tar.TypeSymlink}, member{name: "z", link: "x/escape", typ: tar.TypeSymlink}),
		"hard.tgz":     tarGz(t, member{name: "h", link: "../x", typ: tar.TypeLink}),
		"device.tgz":   tarGz(t, member{name: "dev", typ: tar.TypeChar}),
		"zipslip.zip":  zipBytes(t, member{name: "../../evil.txt", body: "x"}),
		"notarchive.x": []byte("plain text"),
	}
	srv, _ := server(t, cases)
	for name := range cases {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			cache := filepath.Join(root, "cache")
			_, err := utils.GetFile(name, srv.URL+"/"+name, utils.GetFileConfig{CacheDir: cache, Quiet: true, Extract: true})
			if err == nil {
				t.Fatal("extracted")
			}
			if name != "notarchive.x" && !errors.Is(err, utils.ErrUnsafeArchive) {
				t.Errorf("%v, want ErrUnsafeArchive", err)
			}
			if got := listTree(t, root); !slices.Equal(got, []string{"cache/", "cache/datasets/", "cache/datasets/" + name}) {
				t.Errorf("left %q", got)
			}
		})
	}
}

// A decompression bomb stops at MaxExtractBytes.
func TestGetFileExtractLimit(t *testing.T) {
	big := strings.Repeat("0", 1<<20)
	srv, _ := server(t, map[string][]byte{"bomb.tar.gz": tarGz(t, member{name: "zeros", body: big})})
	_, err := utils.GetFile("bomb.tar.gz", srv.URL+"/bomb.tar.gz", utils.GetFileConfig{CacheDir: t.TempDir(), Quiet: true, Extract: true, MaxExtractBytes: 1000})
	if err == nil || !strings.Contains(err.Error(), "more than 1000 bytes extracted") {
		t.Errorf("%v", err)
	}
}
