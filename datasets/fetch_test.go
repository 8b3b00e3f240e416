package datasets

import (
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// DownloadFile checks the digest in the algorithm Keras' "auto" picks by
// the digest's length, refuses a wrong one, a file over MaxBytes and one
// Verify rejects, and leaves no file (nor a temporary one) when it fails.
func TestDownloadFile(t *testing.T) {
	body := []byte("hello, keras")
	srv, _ := fakeServer(t, map[string][]byte{"f": body})
	s := sha256.Sum256(body)
	m := md5.Sum(body)
	sha, md := hex.EncodeToString(s[:]), hex.EncodeToString(m[:])
	dir := t.TempDir()
	dst := filepath.Join(dir, "sub", "f")
	url := srv.URL + "/data/f"
	for _, c := range []struct {
		cfg  DownloadConfig
		want string // "" for success
	}{
		{DownloadConfig{}, ""},
		{DownloadConfig{Hash: sha}, ""},
		{DownloadConfig{Hash: strings.ToUpper(md)}, ""},
		{DownloadConfig{Hash: md, HashAlgorithm: "md5"}, ""},
		{DownloadConfig{Hash: md, HashAlgorithm: "sha256"}, "SHA-256 is " + sha},
		{DownloadConfig{Hash: sha[:32]}, "MD5 is " + md},
		{DownloadConfig{Hash: sha, HashAlgorithm: "sha1"}, `hash algorithm "sha1"`},
		{DownloadConfig{MaxBytes: 5}, "more than 5 bytes"},
		{DownloadConfig{Verify: func(string) error { return errors.New("not the data") }}, "not the data"},
	} {
		os.RemoveAll(dir)
		err := DownloadFile(context.Background(), url, dst, c.cfg)
		got, rerr := os.ReadFile(dst)
		switch {
		case c.want == "" && (err != nil || rerr != nil || string(got) != string(body)):
			t.Errorf("%+v: %v, file %q %v", c.cfg, err, got, rerr)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), url)):
			t.Errorf("%+v: %v, want an error naming the URL with %q", c.cfg, err, c.want)
		case c.want != "" && len(onlyFiles(t, dir)) != 0:
			t.Errorf("%+v: failed, but left %v", c.cfg, onlyFiles(t, dir))
		}
	}
	if err := DownloadFile(context.Background(), srv.URL+"/data/missing", dst, DownloadConfig{}); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("missing file: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := DownloadFile(ctx, url, dst, DownloadConfig{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v, want context.Canceled", err)
	}
}

func TestHashFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	writeFile(t, p, []byte("abc"))
	for alg, want := range map[string]string{
		"sha256": "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
		"auto":   "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
		"md5":    "900150983cd24fb0d6963f7d28e17f72",
	} {
		if got, err := HashFile(p, alg); err != nil || got != want {
			t.Errorf("%s: %s %v, want %s", alg, got, err, want)
		}
	}
}
