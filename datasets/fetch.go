package datasets

import (
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/http"
	neturl "net/url"
	"os"
	"path/filepath"
	"strings"
)

// DownloadConfig is the settings of [DownloadFile]. The zero value works:
// no checksum, no size limit, the client of the dataset loaders.
type DownloadConfig struct {
	// Hash is the file's expected hex digest; "" checks none. A download
	// whose digest differs is an error and leaves no file.
	Hash string
	// HashAlgorithm is "sha256", "md5" or "auto" (also ""): Keras'
	// hash_algorithm, where "auto" takes SHA-256 for a 64-digit Hash and
	// MD5 otherwise.
	HashAlgorithm string
	// MaxBytes bounds the download (a server sending more is an error);
	// 0 means no bound.
	MaxBytes int64
	// Verify, when set, checks the complete file (at a temporary path)
	// before it gets its name; an error it returns is the download's.
	Verify func(path string) error
	// Client does the request; nil means one that fails quickly without a
	// network and lets a transfer run for DefaultDownloadTimeout.
	Client *http.Client

	tooLarge func() error // the dataset loaders' error past MaxBytes
}

// HashAlgorithm resolves Keras' hash_algorithm ("auto", "" , "sha256",
// "md5") for a digest hexHash, as keras.utils' resolve_hasher: "auto"
// means SHA-256 for a 64-digit digest and MD5 otherwise. It returns
// "sha256" or "md5", or an error for another name.
func HashAlgorithm(algorithm, hexHash string) (string, error) {
	switch strings.ToLower(algorithm) {
	case "sha256":
		return "sha256", nil
	case "md5":
		return "md5", nil
	case "", "auto":
		if len(hexHash) == 64 {
			return "sha256", nil
		}
		return "md5", nil
	}
	return "", fmt.Errorf("datasets: hash algorithm %q, want \"auto\", \"sha256\" or \"md5\"", algorithm)
}

func newHasher(algorithm string) (hash.Hash, string) {
	if algorithm == "md5" {
		return md5.New(), "MD5"
	}
	return sha256.New(), "SHA-256"
}

// HashFile returns the hex digest of the file at path with algorithm
// ("sha256" or "md5"; "auto" is SHA-256), as keras.utils' hash_file.
func HashFile(path, algorithm string) (string, error) {
	alg, err := HashAlgorithm(algorithm, strings.Repeat("0", 64))
	if err != nil {
		return "", err
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h, _ := newHasher(alg)
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("datasets: hashing %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// DownloadFile fetches url into the file dst, the download step of
// keras.utils.get_file. It writes a temporary file in dst's folder and
// renames it to dst only once it is complete, has the wanted digest and
// passes Verify, so an interrupted or bad download never leaves a file that
// a later run would take for the data; an existing dst is replaced only
// then. The request stops when ctx is cancelled. Errors name the URL.
func DownloadFile(ctx context.Context, url, dst string, cfg DownloadConfig) (err error) {
	defer func() {
		if err != nil {
			err = fmt.Errorf("%s: %w", url, err)
		}
	}()
	alg, err := HashAlgorithm(cfg.HashAlgorithm, cfg.Hash)
	if err != nil {
		return err
	}
	if ctx == nil {
		ctx = context.Background()
	}
	client := cfg.Client
	if client == nil {
		client = newHTTPClient(DefaultDownloadTimeout)
		defer client.CloseIdleConnections()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if ue := (*neturl.Error)(nil); errors.As(err, &ue) {
		err = ue.Err // it repeats the URL, which the message has already
	}
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("HTTP status %s", resp.Status)
	}
	tooLarge := cfg.tooLarge
	if tooLarge == nil {
		tooLarge = func() error { return fmt.Errorf("more than %d bytes, the limit", cfg.MaxBytes) }
	}
	if cfg.MaxBytes > 0 && resp.ContentLength > cfg.MaxBytes {
		return tooLarge()
	}

	// The folder is made only now, so that failing to connect leaves
	// nothing behind.
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(dst), "."+filepath.Base(dst)+".*.part")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	h, hashName := newHasher(alg)
	body := io.Reader(resp.Body)
	if cfg.MaxBytes > 0 {
		body = io.LimitReader(resp.Body, cfg.MaxBytes+1)
	}
	n, err := io.Copy(io.MultiWriter(tmp, h), body)
	if err != nil {
		return fmt.Errorf("after %d bytes: %w", n, err)
	}
	if cfg.MaxBytes > 0 && n > cfg.MaxBytes {
		return tooLarge()
	}
	if resp.ContentLength >= 0 && n != resp.ContentLength {
		return fmt.Errorf("got %d bytes, want %d", n, resp.ContentLength)
	}
	// CreateTemp's 0600 would make the cached file private, unlike the
	// files Keras' urlretrieve leaves.
	if err = tmp.Chmod(0o644); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if got := hex.EncodeToString(h.Sum(nil)); cfg.Hash != "" && got != strings.ToLower(cfg.Hash) {
		return fmt.Errorf("%s is %s, want %s", hashName, got, cfg.Hash)
	}
	if cfg.Verify != nil {
		if err = cfg.Verify(tmp.Name()); err != nil {
			return err
		}
	}
	return os.Rename(tmp.Name(), dst)
}
